import { z } from "zod";
import type { Principal } from "@/lib/auth/principal";
import { reachOf, reaches } from "@/lib/auth/reach";
import type { Executor } from "@/lib/db/client";
import { getRateCard } from "@/lib/rating/find-rate";

/** The numbers a page asks names for: per billing group (a platform session lists several), bounded. */
export const destinationNamesInputSchema = z
  .array(z.object({ billingGroupId: z.string().min(1).max(64), numbers: z.array(z.string().max(40)).max(1000) }))
  .max(20);

/** billing group id -> number -> the rate card's description of its destination ("Philippines fixed"). */
export type DestinationNames = Record<string, Record<string, string>>;

/**
 * Names of the destinations of called numbers: the description of the longest matching prefix on the group's
 * sell card in force now (the cached card of GET /v1/rates), so the portal can write "+63 2 ... Philippines
 * fixed" next to a number. A name says where a number goes, not what a call was charged: the call's own
 * matched prefix stays in its detail. A bound key gets names of its own group only; numbers that are not digits
 * and groups without a card get none.
 */
export async function nameDestinations(db: Executor, principal: Principal, input: unknown): Promise<DestinationNames> {
  const parsed = destinationNamesInputSchema.safeParse(input);
  if (!parsed.success) return {};
  const out: DestinationNames = {};
  const reach = reachOf(principal);
  for (const { billingGroupId, numbers } of parsed.data) {
    if (!reaches(reach, billingGroupId)) continue;
    const card = await getRateCard(db, "sell", billingGroupId);
    if (!card) continue;
    const names: Record<string, string> = {};
    for (const number of numbers) {
      const digits = /^\+?\d{1,32}$/.test(number) ? number.replace(/^\+/, "") : null;
      const description = digits === null ? null : card.match(digits)?.description;
      if (description) names[number] = description;
    }
    out[billingGroupId] = names;
  }
  return out;
}
