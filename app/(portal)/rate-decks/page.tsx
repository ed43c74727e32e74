import type { Metadata } from "next";
import { DeckHistory } from "@/components/rate-decks/deck-history";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Rate decks" };

/** An account's sell decks and their history (GET /v1/accounts/{id}/rate-decks from the browser). Platform staff with rates:write only (404 to others). */
export default async function Page({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { params } = await requirePortalPage(PORTAL_PAGES.rateDecks, searchParams);
  const owner = typeof params.account === "string" ? params.account : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Rate decks</h1>
        <p className="text-sm text-slate-600">
          Each account&apos;s sell rate decks: the one in force, those scheduled and the history, each as CSV.
        </p>
      </div>
      <DeckHistory side="sell" initialOwner={owner} />
    </div>
  );
}
