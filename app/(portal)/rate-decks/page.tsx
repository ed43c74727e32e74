import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DeckHistory } from "@/components/rate-decks/deck-history";
import { requirePortalSession } from "@/lib/portal/session";
import { returnPathOf } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Rate decks" };

/** An account's sell decks and their history (GET /v1/accounts/{id}/rate-decks from the browser). Platform staff with rates:write only (404 to others). */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const { session } = await requirePortalSession(returnPathOf("/rate-decks", params));
  if (!session.scopes.includes("rates:write")) notFound();
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
