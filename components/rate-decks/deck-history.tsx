"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { apiGet, ApiProblem, retryTransient } from "@/components/api/api-client";
import { Time } from "@/components/portal/time-zone";
import { primaryButtonClass } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { LoadError } from "@/components/ui/load-error";
import { LoadMore } from "@/components/ui/load-more";
import type { DeckPage, DeckSummary } from "@/lib/rating/schemas";
import { DeckEffective } from "./deck-effective";
import { OwnerPicker, SIDES, useDeckOwners, type DeckSide } from "./deck-owners";

const STATUS: Record<DeckSummary["status"], string> = {
  scheduled: "Scheduled",
  in_force: "In force",
  superseded: "Superseded",
};

function who(deck: DeckSummary): string {
  if (!deck.importedBy) return "—";
  if (deck.importedBy.type === "cli") return "Admin CLI";
  return deck.importedBy.label ?? deck.importedBy.id ?? deck.importedBy.type;
}

/**
 * An owner's decks and their history (newest effective-from first, paged by the API's cursor), each downloadable as
 * CSV, with the way to upload the next one. Platform staff, and a reseller's (its subtree, `ownAccount` set: its own
 * account's deck is what it pays, shown without an upload link, and no link to the suppliers' decks).
 */
export function DeckHistory({
  side,
  initialOwner,
  ownAccount,
}: {
  side: DeckSide;
  initialOwner?: string;
  /** A reseller's own account: set for a reseller's session, absent for the platform's. */
  ownAccount?: string;
}) {
  const id = useId();
  const router = useRouter();
  const s = SIDES[side];
  const owners = useDeckOwners(side);
  const [picked, setPicked] = useState(initialOwner ?? "");
  const owner = owners.data?.find((o) => o.id === picked)?.id ?? owners.data?.[0]?.id ?? "";
  const decks = useInfiniteQuery({
    queryKey: ["decks", side, owner],
    enabled: owner !== "",
    retry: retryTransient,
    initialPageParam: `${s.base}/${encodeURIComponent(owner)}/rate-decks?pageSize=20`,
    queryFn: ({ pageParam, signal }) => apiGet<DeckPage>(pageParam, signal),
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
  });
  const rows = decks.data?.pages.flatMap((p) => p.decks) ?? [];

  if (owners.isError) {
    return (
      <Card>
        <LoadError
          title={`The ${s.noun}s could not be loaded.`}
          detail={owners.error instanceof ApiProblem ? owners.error.detail : undefined}
          onRetry={() => owners.refetch()}
        />
      </Card>
    );
  }
  if (owners.data && owners.data.length === 0) {
    return <Card role="note" className="text-sm text-slate-600">{`No ${s.noun}s yet.`}</Card>;
  }
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-end gap-3">
        {owners.data ? (
          <OwnerPicker
            id={`${id}-owner`}
            side={side}
            owners={owners.data}
            value={owner}
            onChange={(next) => {
              setPicked(next);
              router.replace(`${s.page}?${s.param}=${encodeURIComponent(next)}`, { scroll: false });
            }}
          />
        ) : (
          <p className="text-sm text-slate-500">Loading {s.noun}s…</p>
        )}
        {owner ? (
          <>
            {owner === ownAccount ? (
              <p className="text-sm text-slate-600" data-testid="own-deck-note">
                Your own deck: what you pay your provider.
              </p>
            ) : (
              <Link
                href={`${s.page}/upload?${s.param}=${encodeURIComponent(owner)}`}
                className={primaryButtonClass({ compact: true })}
              >
                Upload deck
              </Link>
            )}
            <a
              href={`${s.base}/${encodeURIComponent(owner)}/rate-decks/current`}
              data-testid="download-current"
              download
              className="text-sm font-medium text-brand-700 underline"
            >
              Download the deck in force
            </a>
          </>
        ) : null}
        {ownAccount === undefined ? (
          <Link
            href={side === "sell" ? SIDES.buy.page : SIDES.sell.page}
            className="ml-auto text-sm text-brand-700 underline"
          >
            {side === "sell" ? "Supplier decks" : "Account decks"}
          </Link>
        ) : null}
      </div>
      <Card padding="none" aria-labelledby={`${id}-title`}>
        <div className="px-4 py-3">
          <CardTitle id={`${id}-title`}>Decks and history</CardTitle>
        </div>
        {decks.isError ? (
          <LoadError
            title="The decks could not be loaded."
            detail={decks.error instanceof ApiProblem ? decks.error.detail : undefined}
            onRetry={() => decks.refetch()}
          />
        ) : (
          <div className="overflow-x-auto" role="region" aria-label="Decks table" tabIndex={0}>
            <table className="w-full text-left text-sm" data-testid="deck-history">
              <thead className="border-y border-slate-200 bg-slate-50 text-xs text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">Effective from</th>
                  <th className="px-4 py-2 font-medium">Status</th>
                  <th className="px-4 py-2 text-right font-medium">Rates</th>
                  <th className="px-4 py-2 font-medium">Imported</th>
                  <th className="px-4 py-2 font-medium">By</th>
                  <th className="px-4 py-2 font-medium">
                    <span className="sr-only">Download</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {decks.isPending ? (
                  <tr>
                    <td colSpan={6} className="px-4 py-6 text-center text-slate-500">
                      Loading decks…
                    </td>
                  </tr>
                ) : rows.length === 0 ? (
                  <tr>
                    <td colSpan={6} className="px-4 py-6 text-center text-slate-500">
                      No decks yet: calls of this {s.noun} are not rated until one is uploaded.
                    </td>
                  </tr>
                ) : (
                  rows.map((deck) => (
                    <tr key={deck.id} data-deck-id={deck.id} className="border-b border-slate-100">
                      <td className="px-4 py-2 whitespace-nowrap">
                        <DeckEffective iso={deck.effectiveFrom} side={side} capitalize />
                      </td>
                      <td className="px-4 py-2" data-testid="deck-status">
                        {STATUS[deck.status]}
                      </td>
                      <td className="px-4 py-2 text-right tabular-nums">{deck.rates.toLocaleString("en")}</td>
                      <td className="px-4 py-2 whitespace-nowrap">
                        <Time iso={deck.importedAt} />
                      </td>
                      <td className="px-4 py-2">{who(deck)}</td>
                      <td className="px-4 py-2 text-right">
                        <a
                          href={`/v1/rate-decks/${encodeURIComponent(deck.id)}`}
                          download
                          className="font-medium text-brand-700 underline"
                        >
                          Download CSV
                          <span className="sr-only">
                            {" "}
                            of the deck effective <DeckEffective iso={deck.effectiveFrom} side={side} />
                          </span>
                        </a>
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        )}
        <LoadMore pages={decks} label="Older decks" />
      </Card>
    </div>
  );
}
