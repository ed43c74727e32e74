"use client";

import { Time } from "@/components/portal/time-zone";
import { isFromTheStart } from "@/lib/rating/deck-review";
import type { DeckSide } from "./deck-owners";

const SINCE: Record<DeckSide, string> = {
  sell: "since the account opened",
  buy: "since the supplier was added",
};

/**
 * When a deck takes effect: the first deck's default instant (the epoch) in words, as it covers every call of its
 * owner; any other instant in the portal's time format.
 */
export function DeckEffective({ iso, side, capitalize }: { iso: string; side: DeckSide; capitalize?: boolean }) {
  if (!isFromTheStart(iso)) return <Time iso={iso} />;
  const words = SINCE[side];
  return <span title={iso}>{capitalize ? words[0]!.toUpperCase() + words.slice(1) : words}</span>;
}
