import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { createBillingGroup } from "./groups";
import { writeLedgerEntries } from "./ledger";

describeOnEngines("writeLedgerEntries", (handle) => {
  it("writes every entry as given, amounts exact beyond 2^53", async () => {
    const group = await createBillingGroup(handle().db, { name: "Ledger", currency: "EUR" });
    const big = 9_007_199_254_740_993n; // 2^53 + 1: a float would round it
    await writeLedgerEntries(handle().db, [
      { billingGroupId: group.id, kind: "topup", amountMicros: big, callId: null, description: "Top-up" },
      { billingGroupId: group.id, kind: "adjustment", amountMicros: -1n, callId: 42n, description: "Call re-rated" },
    ]);
    await writeLedgerEntries(handle().db, []);
    const rows = await queryRows<{ kind: string; amount: string; call_id: string | null; description: string }>(
      handle().db,
      sql`SELECT kind, amount_micros::text AS amount, call_id::text AS call_id, description FROM ledger_entries
          WHERE billing_group_id = ${group.id} ORDER BY id`,
    );
    expect(rows).toEqual([
      { kind: "topup", amount: big.toString(), call_id: null, description: "Top-up" },
      { kind: "adjustment", amount: "-1", call_id: "42", description: "Call re-rated" },
    ]);
  });
});

describe("the ledger's one writer", () => {
  const root = path.resolve(__dirname, "../..");
  const sources = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "testing" || e.name === "migrations" ? [] : sources(rel);
      return /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [rel] : [];
    });

  it("is lib/billing/ledger.ts: no other module of app/ or lib/ inserts ledger entries", () => {
    const writers = [...sources("lib"), ...sources("app")].filter((file) =>
      /INSERT\s+INTO\s+ledger_entries|\.insert\(\s*ledgerEntries\s*\)/i.test(
        fs.readFileSync(path.join(root, file), "utf8"),
      ),
    );
    expect(writers).toEqual([path.join("lib", "billing", "ledger.ts")]);
  });
});
