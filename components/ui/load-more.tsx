import { Button } from "./button";

/** What a TanStack infinite query tells a "Load more" control (useInfiniteQuery's result has these). */
interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * The button under a cursor-paged list that fetches its next page (the audit log, the Limits page's refusals, a deck
 * history): shown while there is one, disabled and saying so while it loads.
 */
export function LoadMore({ pages, label = "Load more" }: { pages: NextPages; label?: string }) {
  if (!pages.hasNextPage) return null;
  return (
    <div className="px-4 py-3">
      <Button disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
        {pages.isFetchingNextPage ? "Loading…" : label}
      </Button>
    </div>
  );
}
