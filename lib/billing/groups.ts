import { eq, sql } from "drizzle-orm";
import { queryRows, type Db, type Executor } from "@/lib/db/client";
import { billingGroups } from "@/lib/db/schema";
import { newId } from "@/lib/ids/ids";
import { writeLedgerEntries } from "./ledger";

// Billing groups. A balance moves only through moveBalances (ledger.ts), with its ledger entries; only the opening
// balance is written here, with the group's row and its entry. What fires on billing_groups: triggersOn(
// "billing_groups") (lib/testing/declared-triggers.ts).

export type BillingGroup = typeof billingGroups.$inferSelect;

export interface CreateBillingGroupOptions {
  name: string;
  /** ISO 4217; omitted for a child account, which then takes its parent's. */
  currency?: string;
  openingBalanceMicros?: bigint;
  creditLimitMicros?: bigint;
  accountcode?: string | null;
  /**
   * The account it buys from (docs/contract.md "Reseller tiers"); null/absent: a root account, buying from the
   * operator. Set here only, never changed. The parent must exist and have the same currency (AccountParentError).
   */
  parentId?: string | null;
  /** When the group began, for a history written at once (the demo): its row's and its opening entry's time. */
  createdAt?: Date;
}

/** A parent account refused at creation: it does not exist, or its currency is not the child's. */
export class AccountParentError extends Error {
  constructor(
    readonly parentId: string,
    readonly reason: "unknown_parent" | "currency_mismatch",
    /** The parent's currency (currency_mismatch). */
    readonly parentCurrency: string | null = null,
  ) {
    super(
      reason === "unknown_parent"
        ? `no account ${JSON.stringify(parentId)} to be the parent`
        : `a child account is in its parent's currency (${parentCurrency})`,
    );
  }
}

/** Creates a group; a non-zero opening balance is a ledger entry like any other movement. */
export async function createBillingGroup(db: Executor, options: CreateBillingGroupOptions): Promise<BillingGroup> {
  const opening = options.openingBalanceMicros ?? 0n;
  return db.transaction(async (tx) => {
    const parentId = options.parentId ?? null;
    let currency = options.currency?.trim();
    if (parentId !== null) {
      // KEY SHARE: the parent cannot be deleted under us; its currency never changes.
      const [parent] = await queryRows<{ currency: string }>(
        tx,
        sql`SELECT currency FROM billing_groups WHERE id = ${parentId} FOR KEY SHARE`,
      );
      if (!parent) throw new AccountParentError(parentId, "unknown_parent");
      currency ??= parent.currency.trim();
      if (parent.currency.trim() !== currency)
        throw new AccountParentError(parentId, "currency_mismatch", parent.currency.trim());
    }
    if (currency === undefined) throw new RangeError("a root account names its currency");
    const [group] = await tx
      .insert(billingGroups)
      .values({
        id: newId("bg"),
        name: options.name,
        currency,
        balanceMicros: opening,
        creditLimitMicros: options.creditLimitMicros ?? 0n,
        accountcode: options.accountcode ?? null,
        parentId,
        ...(options.createdAt ? { createdAt: options.createdAt } : {}),
      })
      .returning();
    if (opening !== 0n) {
      await writeLedgerEntries(tx, [
        {
          billingGroupId: group.id,
          kind: "opening",
          amountMicros: opening,
          callId: null,
          description: "Opening balance",
          createdAt: options.createdAt,
        },
      ]);
    }
    return group;
  });
}

export async function getBillingGroup(db: Executor, id: string): Promise<BillingGroup | undefined> {
  const [group] = await db.select().from(billingGroups).where(eq(billingGroups.id, id));
  return group;
}

export async function setBillingGroupDisabledByOperator(
  db: Db,
  id: string,
  disabled: boolean,
): Promise<BillingGroup | undefined> {
  const [group] = await db
    .update(billingGroups)
    .set({ disabledByOperator: disabled })
    .where(eq(billingGroups.id, id))
    .returning();
  return group;
}

export interface InvoicingSettings {
  /** IANA zone of the invoice periods; must be one of the database's (pg_timezone_names). */
  timeZone?: string;
  billingMode?: "prepaid" | "postpaid";
  /** Parts per million, 0-1 000 000. */
  taxRatePpm?: number;
}

export class UnknownTimeZoneError extends Error {
  constructor(readonly timeZone: string) {
    super(`"${timeZone}" is not a time zone the database knows (pg_timezone_names)`);
  }
}

/**
 * Sets a group's invoicing settings (docs/contract.md §10). The zone is stored as the database spells it, so the
 * invoice run's `AT TIME ZONE` and Intl agree on it; an unknown one throws UnknownTimeZoneError. A change applies to
 * the periods not yet invoiced.
 */
export async function setBillingGroupInvoicing(
  db: Executor,
  id: string,
  settings: InvoicingSettings,
): Promise<BillingGroup | undefined> {
  let timeZone: string | undefined;
  if (settings.timeZone !== undefined) {
    const [known] = await queryRows<{ name: string }>(
      db,
      sql`SELECT name FROM pg_timezone_names WHERE lower(name) = lower(${settings.timeZone}) ORDER BY name LIMIT 1`,
    );
    if (!known) throw new UnknownTimeZoneError(settings.timeZone);
    timeZone = known.name;
  }
  if (settings.taxRatePpm !== undefined && !(Number.isInteger(settings.taxRatePpm) && settings.taxRatePpm >= 0))
    throw new RangeError("a tax rate is a whole number of parts per million");
  if (timeZone === undefined && settings.billingMode === undefined && settings.taxRatePpm === undefined)
    return getBillingGroup(db, id);
  const [group] = await db
    .update(billingGroups)
    .set({
      ...(timeZone !== undefined && { timeZone }),
      ...(settings.billingMode !== undefined && { billingMode: settings.billingMode }),
      ...(settings.taxRatePpm !== undefined && { taxRatePpm: settings.taxRatePpm }),
    })
    .where(eq(billingGroups.id, id))
    .returning();
  return group;
}
