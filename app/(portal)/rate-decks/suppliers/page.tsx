import type { Metadata } from "next";
import { DeckHistory } from "@/components/rate-decks/deck-history";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Supplier decks" };

/** A supplier's buy decks and their history. Platform staff with rates:write only (404 to others). */
export default async function Page({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { params } = await requirePortalPage(PORTAL_PAGES.supplierDecks, searchParams);
  const owner = typeof params.supplier === "string" ? params.supplier : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Supplier decks</h1>
        <p className="text-sm text-slate-600">
          Each supplier&apos;s buy rate decks: what calls routed to it cost the platform.
        </p>
      </div>
      <DeckHistory side="buy" initialOwner={owner} />
    </div>
  );
}
