import { sql } from "drizzle-orm";
import { z } from "zod";
import { recordAuditEvent, type AuditActor } from "@/lib/audit/record-audit-event";
import { uninvoicedGroups, whileArchiving } from "@/lib/calls/archive-calls";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { INSTANT_RANGE_MESSAGE, isStorableInstant } from "@/lib/http/query-params";
import { CALL_KEYS, callKeysTable, callsTable, localName, onEveryShard, type HistoryStore } from "./history-store";
import { tierChargesOfAccount, tierChargesTable } from "./history-tier-charges";

// Erasure of one account's calls in both tiers on request (docs/contract.md "History tier"): its calls leave
// PostgreSQL through the archive path's trigger switch (rollups keep counting them, no invoice recheck is marked) and
// ClickHouse by a mutation; ledger, invoices, rollups and uuid claims stay. Audited with the counts.

export const eraseCallsBodySchema = z
  .object({
    before: z.iso
      .datetime({ offset: true, error: "must be an ISO 8601 timestamp with offset (2026-12-31T00:00:00Z)" })
      .refine(isStorableInstant, { message: INSTANT_RANGE_MESSAGE })
      .optional()
      .describe("Erase the calls that started before this instant; absent: every call of the account"),
  })
  .strict();

export const eraseCallsResultSchema = z.object({
  account: z.string().describe("The account (billing group) whose calls were erased"),
  before: z.string().nullable().describe("The bound asked for; null: every call"),
  erased: z.object({
    hot: z.number().int().describe("Calls erased from PostgreSQL"),
    history: z.number().int().describe("Calls erased from the history tier (ClickHouse); 0 without it"),
    total: z.number().int(),
  }),
});
export type EraseCallsResult = z.infer<typeof eraseCallsResultSchema>;

/** How long an erasure waits for ClickHouse's mutation (inside the Idempotency-Key's 60 s lock). */
const MUTATION_WAIT_MS = 45_000;

/** A ClickHouse string literal (18.16 has no query parameters). */
const text = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/**
 * Erases the account's calls that started before `before` (all without it), in PostgreSQL and, with the history tier
 * on, in ClickHouse, and records `account.calls_erased` with the counts, in one transaction (the ClickHouse mutation
 * runs and is waited for inside it: a failure there rolls the PostgreSQL side back, and a retry erases again).
 * 404 for an unknown account; 409 `conflict` when a call in range is of a period not yet invoiced (run the invoice
 * run first: an invoice reads the days its period cuts from calls).
 */
export async function eraseAccountCalls(
  db: Db,
  store: HistoryStore | undefined,
  accountId: string,
  options: { before?: Date },
  by: { actor: AuditActor; address: string | null },
): Promise<EraseCallsResult> {
  const before = options.before ?? new Date("9999-12-31T00:00:00Z");
  return db.transaction(async (tx) => {
    const [group] = await queryRows<{ id: string; until: string | null }>(
      tx,
      sql`SELECT g.id, to_char(u.period_end AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS until
          FROM billing_groups g LEFT JOIN invoiced_until u ON u.billing_group_id = g.id WHERE g.id = ${accountId}`,
    );
    if (!group) throw new ApiError("not_found", `No account with id ${JSON.stringify(accountId.slice(0, 64))}.`);
    if ((await uninvoicedGroups(tx, { billingGroupId: accountId, before })).length > 0)
      throw new ApiError(
        "conflict",
        `Calls of periods not yet invoiced: erase calls before ${group.until ?? "the first invoice's end"} at most, ` +
          "or run the invoice run first.",
        [
          {
            param: "before",
            message: `must be at most the end of the last invoiced period (${group.until ?? "none"})`,
          },
        ],
      );
    // The archive path's switch: rollups keep counting the calls, no recheck is marked.
    const [{ n }] = await whileArchiving(tx, async () => {
      await tx.execute(
        sql`DELETE FROM call_tier_charges WHERE billing_group_id = ${accountId}
            AND start_time < ${before.toISOString()}::timestamptz`,
      );
      return queryRows<{ n: string }>(
        tx,
        sql`WITH gone AS (DELETE FROM calls WHERE billing_group_id = ${accountId}
                            AND start_time < ${before.toISOString()}::timestamptz RETURNING 1)
            SELECT count(*)::text AS n FROM gone`,
      );
    });
    const hot = Number(n);
    const history = store ? await eraseInHistory(store, accountId, before) : 0;
    await recordAuditEvent(tx, {
      actor: by.actor,
      action: "account.calls_erased",
      billingGroupId: accountId,
      targetType: "account",
      targetId: accountId,
      address: by.address,
      after: { before: options.before?.toISOString() ?? null, hot, history, total: hot + history },
    });
    return {
      account: accountId,
      before: options.before?.toISOString() ?? null,
      erased: { hot, history, total: hot + history },
    };
  });
}

/**
 * ClickHouse's side: the rows counted, then `ALTER TABLE ... DELETE` (a mutation, asynchronous) of the calls and of
 * their reseller tier charges (history-tier-charges.ts), waited for until system.mutations has none of either table's
 * unfinished and no row is left in either; 503 past MUTATION_WAIT_MS. Answers the calls erased.
 */
async function eraseInHistory(store: HistoryStore, accountId: string, before: Date): Promise<number> {
  const where = `billing_group_id = ${text(accountId)} AND start_time < ${before.getTime()}`;
  const tables = [
    { name: "calls", qualified: callsTable(store), where },
    // Their keys in call_keys (history-store.ts ensureCallKeys), so no platform page reads a key without its call.
    { name: CALL_KEYS, qualified: callKeysTable(store), where },
    { name: "call_tier_charges", qualified: tierChargesTable(store), where: tierChargesOfAccount(accountId, before) },
  ];
  const exists = await store.client.query({
    query: `SELECT name FROM system.tables WHERE database = ${text(store.database)}
            AND name IN (${tables.map((t) => text(t.name)).join(", ")})`,
    format: "JSONEachRow",
  });
  const present = new Set((await exists.json<{ name: string }>()).map((t) => t.name));
  const here = tables.filter((t) => present.has(t.name));
  const count = async (table: (typeof tables)[number]) => {
    const result = await store.client.query({
      query: `SELECT toString(count()) AS n FROM ${table.qualified} WHERE ${table.where}`,
      format: "JSONEachRow",
    });
    return Number((await result.json<{ n: string }>())[0]?.n ?? 0);
  };
  const found = await Promise.all(here.map(count));
  if (found.every((n) => n === 0)) return 0;
  // A mutation is of a MergeTree: with a cluster, of each table's _local on every shard (a Distributed table has none).
  for (const [i, table] of here.entries())
    if (found[i] > 0)
      await onEveryShard(store, (local) => `ALTER TABLE ${local} DELETE WHERE ${table.where}`, table.name);
  const erased = here[0]?.name === "calls" ? found[0] : 0;
  const locals = here.map((t) => text(localName(store, t.name))).join(", ");
  const deadline = Date.now() + MUTATION_WAIT_MS;
  for (;;) {
    let pending = 0;
    for (const shard of store.shards) {
      const unfinished = await shard.query({
        query: `SELECT count() AS n FROM system.mutations
                WHERE database = ${text(store.database)} AND table IN (${locals}) AND is_done = 0`,
        format: "JSONEachRow",
      });
      pending += Number((await unfinished.json<{ n: string }>())[0]?.n ?? 0);
    }
    const left = await Promise.all(here.map(count));
    if (pending === 0 && left.every((n) => n === 0)) return erased;
    if (Date.now() > deadline)
      throw new ApiError(
        "unavailable",
        "The erasure in the history tier is still running. Retry with the same Idempotency-Key shortly.",
        undefined,
        { "Retry-After": "5" },
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
