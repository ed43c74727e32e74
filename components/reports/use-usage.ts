"use client";

import { useQuery } from "@tanstack/react-query";
import type { UsageReport } from "@/lib/usage/schemas";
import { apiGet } from "../api/api-client";

/**
 * GET /v1/usage for a query (none: nothing to fetch). One query key per query text, so the call
 * log's totals and the Reports page share the cache when they ask the same thing.
 */
export function useUsage(query: URLSearchParams | null, { enabled = true }: { enabled?: boolean } = {}) {
  const text = query?.toString() ?? null;
  return useQuery({
    queryKey: ["usage", text],
    queryFn: ({ signal }) => apiGet<UsageReport>(`/v1/usage?${text}`, signal),
    enabled: text !== null && enabled,
  });
}
