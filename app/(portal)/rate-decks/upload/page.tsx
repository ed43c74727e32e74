import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DeckUpload } from "@/components/rate-decks/deck-upload";
import { requirePortalSession } from "@/lib/portal/session";
import { returnPathOf } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Upload a rate deck" };

/** Upload a sell deck: the dry run's diff first, then Confirm imports it. Platform staff with rates:write only (404 to others). */
export default async function Page({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const { session } = await requirePortalSession(returnPathOf("/rate-decks/upload", params));
  if (!session.scopes.includes("rates:write")) notFound();
  const owner = typeof params.account === "string" ? params.account : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Upload a rate deck</h1>
        <p className="text-sm text-slate-600">
          Choose a CSV file and when it takes effect, review what changes and the margin warnings, then confirm.
        </p>
      </div>
      <DeckUpload side="sell" initialOwner={owner} />
    </div>
  );
}
