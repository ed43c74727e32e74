import { useInfiniteQuery } from "@tanstack/react-query";
import type { CallPage } from "@/lib/calls/schemas";
import { callPagesKey, firstCallPagePath } from "@/lib/portal/query-keys";
import { apiGet } from "../api/api-client";

/** The pages after the first (FIRST_CALL_PAGE_SIZE, small so rows show at once) are large so scrolling rarely waits. */
export const NEXT_PAGE_SIZE = 500;

/** The next page's URL at the larger size: the cursor is bound to the filters, not to the page size (docs/contract.md §4). */
export function nextPageAt(nextPageUrl: string | null, pageSize = NEXT_PAGE_SIZE): string | undefined {
  if (!nextPageUrl) return undefined;
  const url = new URL(nextPageUrl, "http://portal.invalid");
  url.searchParams.set("pageSize", String(pageSize));
  return `${url.pathname}${url.search}`;
}

/**
 * The call log's pages of GET /v1/calls for one filter query, following nextPageUrl. Loaded pages are
 * kept (never refetched behind the user's back); resetting the query key starts over. The page's server render may
 * have filled in the first page (callLogFirstScreen): scrolling continues from its nextPageUrl.
 */
export function useCallPages(apiQueryText: string, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: callPagesKey(apiQueryText),
    queryFn: ({ pageParam, signal }) => apiGet<CallPage>(pageParam, signal),
    initialPageParam: firstCallPagePath(apiQueryText),
    getNextPageParam: (last) => nextPageAt(last.nextPageUrl),
    // Hundreds of loaded pages must not be refetched behind the user's back; "Refresh" restarts.
    staleTime: Infinity,
    // Deep-comparing every loaded page on each new page is O(rows); the pages never change anyway.
    structuralSharing: false,
    enabled,
  });
}

export type CallPages = ReturnType<typeof useCallPages>;
