import { useInfiniteQuery } from "@tanstack/react-query";
import type { CallPage } from "@/lib/calls/schemas";
import { apiGet } from "../api/api-client";

const PAGE_SIZE = 500;

/**
 * The call log's pages of GET /v1/calls for one filter query, following nextPageUrl. Loaded pages are
 * kept (never refetched behind the user's back); resetting the query key starts over.
 */
export function useCallPages(apiQueryText: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: ["calls", apiQueryText],
    queryFn: ({ pageParam, signal }) => apiGet<CallPage>(pageParam, signal),
    initialPageParam: `/v1/calls?${apiQueryText ? `${apiQueryText}&` : ""}pageSize=${PAGE_SIZE}`,
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
    // Hundreds of loaded pages must not be refetched behind the user's back; "Refresh" restarts.
    staleTime: Infinity,
    // Deep-comparing every loaded page on each new page is O(rows); the pages never change anyway.
    structuralSharing: false,
    enabled,
  });
}

export type CallPages = ReturnType<typeof useCallPages>;
