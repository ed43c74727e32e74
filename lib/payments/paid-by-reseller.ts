import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";

/**
 * The reseller an account pays (its parent, by the name on the reseller's documents: its billing name, else its
 * account's), or null for an account the operator bills. A reseller's customer pays its reseller, never the
 * operator's payment provider (docs/contract.md "Reseller tiers", "Who pays whom"): a card paid here would credit the
 * customer with money the reseller never received.
 */
export async function paidByReseller(db: Executor, groupId: string): Promise<string | null> {
  const [row] = await queryRows<{ reseller: string | null }>(
    db,
    sql`SELECT COALESCE(NULLIF(p.billing_name, ''), p.name) AS reseller
        FROM billing_groups g LEFT JOIN billing_groups p ON p.id = g.parent_id WHERE g.id = ${groupId}`,
  );
  return row?.reseller ?? null;
}

/** The refusal of a card top-up or auto-recharge for a reseller's customer: who to ask instead. */
export function paysItsReseller(reseller: string): ApiError {
  return new ApiError(
    "conflict",
    `This account is billed by ${reseller}, its reseller: card payments here would not reach them. Ask ${reseller} to top it up.`,
  );
}
