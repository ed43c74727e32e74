import type { Metadata } from "next";
import { DeckHistory } from "@/components/rate-decks/deck-history";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Rate decks" };

/**
 * An account's sell decks and their history (GET /v1/accounts/{id}/rate-decks from the browser): sessions with
 * rates:write (404 to others), the platform's on every account, a reseller's on its subtree (its own deck: what it pays).
 */
export default async function Page({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, params } = await requirePortalPage(PORTAL_PAGES.rateDecks, searchParams);
  const owner = typeof params.account === "string" ? params.account : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Rate decks</h1>
        <p className="text-sm text-slate-600">
          {session.billingGroupId === null
            ? "Each account's sell rate decks: the one in force, those scheduled and the history, each as CSV."
            : "Your customers' rate decks (what they pay you) and your own (what you pay): the one in force, those scheduled and the history, each as CSV."}
        </p>
      </div>
      <DeckHistory side="sell" initialOwner={owner} ownAccount={session.billingGroupId ?? undefined} />
    </div>
  );
}
