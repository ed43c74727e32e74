"use client";

import { useQueries, type QueryObserverResult } from "@tanstack/react-query";
import { useMemo } from "react";
import type { DestinationNames } from "@/lib/portal/destination-names";
import { nameDestinations } from "@/lib/portal/destination-names-actions";

type Numbered = { billingGroupId: string; to: string };

function request(calls: Numbered[]) {
  const byGroup = new Map<string, Set<string>>();
  for (const c of calls) {
    const set = byGroup.get(c.billingGroupId) ?? new Set<string>();
    set.add(c.to);
    byGroup.set(c.billingGroupId, set);
  }
  return [...byGroup].map(([billingGroupId, numbers]) => ({ billingGroupId, numbers: [...numbers] }));
}

// Module-level, so useQueries keeps its result while no answer changes.
const answers = (results: QueryObserverResult<DestinationNames>[]) => results.map((r) => r.data);

/**
 * Destination names ("Philippines fixed") of called numbers, asked once per batch of calls (a page of the log,
 * the dashboard's latest): `nameOf(call)` is undefined until its batch is answered, or when the card has none.
 */
export function useDestinationNames(batches: Numbered[][], key: string): (call: Numbered) => string | undefined {
  const data = useQueries({
    queries: batches.map((calls, i) => ({
      // A refreshed log may hold other calls on page i: the page's first call tells them apart.
      queryKey: ["destination-names", key, i, calls[0]?.to ?? "", calls.length],
      queryFn: () => nameDestinations(request(calls)),
      staleTime: Infinity,
      // Names are a convenience: a failure leaves the numbers unnamed rather than retrying in a loop.
      retry: false,
    })),
    combine: answers,
  });
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const answer of data) {
      if (!answer) continue;
      for (const [group, byNumber] of Object.entries(answer))
        for (const [number, name] of Object.entries(byNumber)) names.set(`${group}|${number}`, name);
    }
    return (call: Numbered) => names.get(`${call.billingGroupId}|${call.to}`);
  }, [data]);
}
