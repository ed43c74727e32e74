"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { CallPage } from "@/lib/calls/schemas";
import { formatDuration } from "@/lib/portal/format";
import { latestCallsKey, latestCallsPath } from "@/lib/portal/query-keys";
import { apiGet } from "../api/api-client";
import { DirectionBadge, PhoneNumber, Price, StatusBadge, listedCallStatus } from "../calls/call-columns";
import { useDestinationNames } from "../calls/use-destination-names";
import { Time } from "../portal/time-zone";
import { Card, CardTitle } from "@/components/ui/card";
import { LoadError } from "@/components/ui/load-error";
import { Skeleton } from "@/components/ui/skeleton";

const EMPTY: CallPage["calls"] = [];

/**
 * The newest calls (of the chosen account, for a platform session), from the same GET /v1/calls the call log pages
 * through: a table from `sm` up, a card per call on a phone (so the price stays in view, as in the call log). The
 * dashboard's server render fills them in (lib/portal/first-screen.ts). Times are in `timeZone`, the zone the
 * dashboard's days are cut in (the account's), not the header's Local/UTC choice: one zone per screen.
 */
export function LatestCalls({ account, timeZone }: { account?: string; timeZone: string }) {
  const page = useQuery({
    queryKey: latestCallsKey(account),
    queryFn: ({ signal }) => apiGet<CallPage>(latestCallsPath(account), signal),
  });
  const calls = page.data?.calls ?? EMPTY;
  const nameOf = useDestinationNames([calls], `latest-${account ?? ""}-${calls[0]?.id ?? ""}`);
  return (
    <Card padding="none" aria-labelledby="latest-title">
      <div className="flex items-center justify-between px-5 pt-4">
        <CardTitle id="latest-title">Latest calls</CardTitle>
        <Link
          href={account ? `/calls?account=${encodeURIComponent(account)}` : "/calls"}
          className="text-sm font-medium text-brand-700 hover:text-brand-600"
        >
          View all →
        </Link>
      </div>
      {page.isPending ? (
        <div className="space-y-3 px-5 py-4" aria-hidden>
          {Array.from({ length: 5 }, (_, i) => (
            <Skeleton key={i} className="h-3" />
          ))}
        </div>
      ) : page.isError ? (
        <LoadError title="Latest calls could not be loaded" onRetry={() => void page.refetch()} compact />
      ) : calls.length === 0 ? (
        <p className="px-5 py-6 text-center text-sm text-slate-600">No calls yet.</p>
      ) : (
        <>
          <ul
            className="mt-2 divide-y divide-slate-100 sm:hidden"
            aria-label="Latest calls"
            data-testid="latest-call-cards"
          >
            {calls.map((c) => (
              <li key={c.id} className="flex flex-col gap-1 px-5 py-2.5 text-[13px]" data-testid="latest-call-card">
                <div className="flex items-start justify-between gap-3">
                  <PhoneNumber number={c.to} name={nameOf(c)} />
                  <span className="num shrink-0 font-medium">
                    <Price call={c} />
                  </span>
                </div>
                <div className="flex items-center justify-between gap-2 text-xs text-slate-600">
                  <span className="tabular-nums">
                    <Time iso={c.startTime} timeZone={timeZone} /> {timeZone}
                  </span>
                  <span className="flex items-center gap-2">
                    <StatusBadge status={listedCallStatus(c)} />
                    <span className="tabular-nums">{formatDuration(c.duration)}</span>
                  </span>
                </div>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto sm:block" role="region" aria-label="Latest calls table" tabIndex={0}>
            <table className="mt-2 w-full min-w-[40rem] text-sm" data-testid="latest-calls">
              <thead>
                <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600">
                  <th scope="col" className="px-5 py-2 font-semibold">
                    Start time ({timeZone})
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Direction
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    To
                  </th>
                  <th scope="col" className="px-3 py-2 font-semibold">
                    Status
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-semibold">
                    Duration
                  </th>
                  <th scope="col" className="px-5 py-2 text-right font-semibold">
                    Price
                  </th>
                </tr>
              </thead>
              <tbody>
                {calls.map((c) => (
                  <tr key={c.id} className="border-b border-slate-100 last:border-0">
                    <td className="whitespace-nowrap px-5 py-2 tabular-nums">
                      <Time iso={c.startTime} timeZone={timeZone} />
                    </td>
                    <td className="px-3 py-2">
                      <DirectionBadge direction={c.direction} />
                    </td>
                    <td className="max-w-[16rem] px-3 py-2">
                      <PhoneNumber number={c.to} name={nameOf(c)} />
                    </td>
                    <td className="px-3 py-2">
                      <StatusBadge status={listedCallStatus(c)} />
                    </td>
                    <td className="num px-3 py-2">{formatDuration(c.duration)}</td>
                    <td className="num px-5 py-2">
                      <Price call={c} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Card>
  );
}
