"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Card, CardTitle } from "@/components/ui/card";
import { Stat } from "@/components/ui/stat";
import { hasLiveCaps, liveState } from "@/lib/limits/live-state";
import { PORTAL_PAGES } from "@/lib/portal/pages";
import { formatAmount } from "@/lib/portal/format";
import { limitsQuery } from "./api";

/** The dashboard's live limits: calls now and today's spend against their caps; nothing for an account without. */
export function LimitsCard({ account, platform }: { account: string | null; platform: boolean }) {
  const limits = useQuery(limitsQuery(account, platform));
  if (!limits.data) return null;
  const state = liveState(limits.data);
  if (!hasLiveCaps(state)) return null;
  const { currency } = limits.data;
  const carried = platform && account ? `?account=${encodeURIComponent(account)}` : "";
  return (
    <Card aria-labelledby="limits-card-title" data-testid="limits-card">
      <CardTitle id="limits-card-title">Limits now</CardTitle>
      <dl className="mt-2 grid grid-cols-2 gap-3">
        {state.concurrentCalls.cap !== null ? (
          <Stat label="Calls in progress" testId="limits-card-calls">
            {state.concurrentCalls.now} of {state.concurrentCalls.cap}
          </Stat>
        ) : null}
        {state.today.capMicros !== null ? (
          <Stat label="Spent today" testId="limits-card-today">
            {formatAmount(state.today.spentMicros, currency)} of {formatAmount(state.today.capMicros, currency)}
          </Stat>
        ) : null}
      </dl>
      <Link
        href={`${PORTAL_PAGES.limits.path}${carried}`}
        className="mt-3 inline-block text-sm text-brand-700 underline"
      >
        All limits
      </Link>
    </Card>
  );
}
