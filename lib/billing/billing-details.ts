import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordAuditEvent } from "@/lib/audit/record-audit-event";
import type { Db, Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { ApiError } from "@/lib/errors/api-error";
import type { ChangeContext } from "./change-context";

// An account's billing details (issue 32 item 4, docs/contract.md "Reseller tiers"): the name, address and tax id the
// documents it issues to its customers carry (lib/invoices/tier-usage.ts issuerOf), and the name its invoice mail is
// sent under. Set by the account's own owners and admins; the operator's own are OPERATOR_NAME / OPERATOR_ADDRESS.

/** One line of the issuer block: printable, no line breaks (an address's lines are split on them). */
const line = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "Control characters are not allowed.");

export const billingDetailsSchema = z
  .object({
    name: line(200).describe("The name documents are issued under; empty: the account's name"),
    address: z
      .string()
      .max(1000)
      .transform((s) =>
        s
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l !== ""),
      )
      .pipe(z.array(line(200)).max(6, "At most 6 lines."))
      .transform((lines) => lines.join("\n"))
      .describe("Up to 6 lines"),
    taxId: line(64).describe("A tax or VAT number, printed under the address; empty: none"),
  })
  .meta({ id: "BillingDetails" });
export type BillingDetails = z.output<typeof billingDetailsSchema>;

/** An account's billing details as stored (empty strings when never set). */
export async function getBillingDetails(db: Executor, groupId: string): Promise<BillingDetails | null> {
  const [row] = await db
    .select({ name: billingGroups.billingName, address: billingGroups.billingAddress, taxId: billingGroups.taxId })
    .from(billingGroups)
    .where(eq(billingGroups.id, groupId));
  return row ?? null;
}

/** Replaces an account's billing details, audited (`account.billing_details_updated`, before and after). */
export async function setBillingDetails(
  db: Db,
  groupId: string,
  details: BillingDetails,
  by: ChangeContext,
): Promise<BillingDetails> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ name: billingGroups.billingName, address: billingGroups.billingAddress, taxId: billingGroups.taxId })
      .from(billingGroups)
      .where(eq(billingGroups.id, groupId))
      .for("update");
    if (!before) throw new ApiError("not_found", `No account with id ${JSON.stringify(groupId.slice(0, 64))}.`);
    await tx
      .update(billingGroups)
      .set({ billingName: details.name, billingAddress: details.address, taxId: details.taxId })
      .where(eq(billingGroups.id, groupId));
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "account.billing_details_updated",
      billingGroupId: groupId,
      targetType: "account",
      targetId: groupId,
      address: by.address,
      before,
      after: details,
    });
    return details;
  });
}

/**
 * The issuer block of a document an account issues: its billing name (else its name), and its address with the tax
 * id as the last line (the PDF prints the address line by line).
 */
export function issuerBlockOf(account: { name: string }, details: BillingDetails): { name: string; address: string } {
  const lines = [details.address, details.taxId ? `Tax ID: ${details.taxId}` : ""].filter((l) => l !== "");
  return { name: details.name || account.name, address: lines.join("\n") };
}
