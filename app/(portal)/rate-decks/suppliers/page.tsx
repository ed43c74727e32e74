import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DeckHistory } from "@/components/rate-decks/deck-history";
import { requirePortalSession } from "@/lib/portal/session";
import { returnPathOf } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Supplier decks" };

/** A supplier's buy decks and their history. Platform staff with rates:write only (404 to others). */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const { session } = await requirePortalSession(returnPathOf("/rate-decks/suppliers", params));
  if (!session.scopes.includes("rates:write")) notFound();
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
