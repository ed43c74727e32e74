import type { Metadata } from "next";
import { DeckUpload } from "@/components/rate-decks/deck-upload";
import { getDb } from "@/lib/db/client";
import { accountNames, supplierNames } from "@/lib/portal/account-names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Upload a rate deck" };

/**
 * Upload a sell deck: the dry run's diff first, then Confirm imports it. Sessions with rates:write (404 to others): the
 * platform's for every account, a reseller's for its customers (not its own), with the margin guard against its own deck.
 */
export default async function Page({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal, params } = await requirePortalPage(PORTAL_PAGES.rateDeckUpload, searchParams);
  const owner = typeof params.account === "string" ? params.account : undefined;
  // The dry run's margin warnings name accounts and suppliers, not their ids.
  const db = await getDb();
  const [accounts, suppliers] = await Promise.all([accountNames(db, principal), supplierNames(db, principal)]);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Upload a rate deck</h1>
        <p className="text-sm text-slate-600">
          Choose a CSV file and when it takes effect, review what changes and the margin warnings, then confirm.
        </p>
      </div>
      <DeckUpload
        side="sell"
        initialOwner={owner}
        names={{ ...accounts, ...suppliers }}
        exclude={session.billingGroupId ?? undefined}
      />
    </div>
  );
}
