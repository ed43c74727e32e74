"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { CallPage } from "@/lib/calls/schemas";
import { formatDuration } from "@/lib/portal/format";
import { apiGet } from "../api/api-client";
import { DirectionBadge, Price } from "../calls/call-columns";
import { Time, useTimeZone } from "../portal/time-zone";
import { Skeleton } from "@/components/ui/skeleton";

/** The newest calls (of the chosen account, for a platform session), from the same GET /v1/calls the call log pages through. */
export function LatestCalls({ account }: { account?: string }) {
  const query = `/v1/calls?pageSize=8${account ? `&billingGroupId=${encodeURIComponent(account)}` : ""}`;
  const page = useQuery({
    queryKey: ["latest-calls", account],
    queryFn: ({ signal }) => apiGet<CallPage>(query, signal),
  });
  const zone = useTimeZone();
  return (
    <section aria-labelledby="latest-title" className="rounded-xl border border-slate-200 bg-white shadow-sm">
      <div className="flex items-center justify-between px-5 pt-4">
        <h2 id="latest-title" className="text-sm font-medium text-slate-600">
          Latest calls
        </h2>
        <Link
          href={account ? `/calls?account=${encodeURIComponent(account)}` : "/calls"}
          className="text-sm font-medium text-brand-700 hover:text-brand-600"
        >
          View all →
        </Link>
      </div>
      {/* Scrolls sideways on narrow screens: focusable and named, so keyboard users can scroll it too. */}
      <div className="overflow-x-auto" role="region" aria-label="Latest calls table" tabIndex={0}>
        <table className="mt-2 w-full min-w-[36rem] text-sm" data-testid="latest-calls">
          <thead>
            <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600">
              <th scope="col" className="px-5 py-2 font-semibold">
                Start time ({zone.short})
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                Direction
              </th>
              <th scope="col" className="px-3 py-2 font-semibold">
                To
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
            {page.isPending ? (
              Array.from({ length: 5 }, (_, i) => (
                <tr key={i} aria-hidden className="border-b border-slate-100">
                  <td colSpan={5} className="px-5 py-3">
                    <Skeleton className="h-3" />
                  </td>
                </tr>
              ))
            ) : page.isError ? (
              <tr>
                <td colSpan={5} className="px-5 py-6 text-center text-sm text-red-800" role="alert">
                  Latest calls could not be loaded.{" "}
                  <button type="button" className="underline" onClick={() => void page.refetch()}>
                    Retry
                  </button>
                </td>
              </tr>
            ) : page.data.calls.length === 0 ? (
              <tr>
                <td colSpan={5} className="px-5 py-6 text-center text-sm text-slate-600">
                  No calls yet.
                </td>
              </tr>
            ) : (
              page.data.calls.map((c) => (
                <tr key={c.id} className="border-b border-slate-100 last:border-0">
                  <td className="whitespace-nowrap px-5 py-2.5 tabular-nums">
                    <Time iso={c.startTime} />
                  </td>
                  <td className="px-3 py-2.5">
                    <DirectionBadge direction={c.direction} />
                  </td>
                  <td className="px-3 py-2.5 font-mono text-[13px]">{c.to}</td>
                  <td className="num px-3 py-2.5">{formatDuration(c.duration)}</td>
                  <td className="num px-5 py-2.5">
                    <Price call={c} />
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
