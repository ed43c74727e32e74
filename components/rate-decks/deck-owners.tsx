"use client";

import { useQuery } from "@tanstack/react-query";
import { apiGet, retryTransient } from "@/components/api/api-client";
import { Field, inputClass } from "@/components/ui/field";
import type { SupplierJson } from "@/lib/rating/schemas";

export type DeckSide = "sell" | "buy";

export interface DeckOwner {
  id: string;
  name: string;
}

/** Where each side's decks live in /v1, and what their owner is called. */
export const SIDES = {
  sell: { base: "/v1/accounts", param: "account", noun: "account", page: "/rate-decks" },
  buy: { base: "/v1/suppliers", param: "supplier", noun: "supplier", page: "/rate-decks/suppliers" },
} as const;

/** The owners decks can be uploaded for: the accounts (sell decks) or the suppliers (buy decks), by name. */
export function useDeckOwners(side: DeckSide) {
  return useQuery({
    queryKey: ["deck-owners", side],
    retry: retryTransient,
    queryFn: async ({ signal }): Promise<DeckOwner[]> => {
      if (side === "buy") {
        const { suppliers } = await apiGet<{ suppliers: SupplierJson[] }>("/v1/suppliers", signal);
        return suppliers.map((s) => ({ id: s.id, name: s.gatewayName ? `${s.name} (${s.gatewayName})` : s.name }));
      }
      const { accounts } = await apiGet<{ accounts: { id: string; name: string; currency: string }[] }>(
        "/v1/accounts",
        signal,
      );
      return accounts.map((a) => ({ id: a.id, name: `${a.name} (${a.currency})` }));
    },
  });
}

/**
 * The account or supplier picker of the deck pages. `value` "" shows "Choose an account…" first: the upload has no
 * default owner, so a deck never goes to the first account of the list by mistake.
 */
export function OwnerPicker({
  id,
  side,
  owners,
  value,
  onChange,
}: {
  id: string;
  side: DeckSide;
  owners: DeckOwner[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <Field id={id} label={side === "sell" ? "Account" : "Supplier"} className="max-w-sm">
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className={inputClass()}>
        {value === "" ? (
          <option value="" disabled>
            Choose {side === "sell" ? "an account" : "a supplier"}…
          </option>
        ) : null}
        {owners.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </Field>
  );
}
