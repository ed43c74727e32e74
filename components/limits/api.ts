"use client";

import { apiGet } from "@/components/api/api-client";
import type { Limits } from "@/lib/limits/schemas";

// The one read of GET /v1/limits the Limits page and the dashboard's card share (one cache entry per account).

export function limitsKey(account: string | null) {
  return ["limits", account] as const;
}

/** A platform session names the account; a customer's reads its own. */
export function limitsQuery(account: string | null, platform: boolean) {
  return {
    queryKey: limitsKey(account),
    queryFn: ({ signal }: { signal: AbortSignal }) =>
      apiGet<Limits>(`/v1/limits${platform && account ? `?account=${encodeURIComponent(account)}` : ""}`, signal),
    enabled: !platform || account !== null,
  };
}
