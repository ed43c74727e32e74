import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { runAdminCommand } from "@/lib/admin/commands";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import type { ChangeContext } from "./change-context";
import { testPrincipal } from "@/lib/testing/test-principal";
import { getAccount } from "./accounts";
import { createAccount } from "./create-account";
import { moveBalance } from "./move-balance";
import { updateAccount } from "./update-account";

const BY: ChangeContext = { actor: { type: "api_key", id: "key_ops", label: "ops" }, address: "203.0.113.7" };

describeOnEngines("provisioning accounts", (handle) => {
  const events = (id: string) =>
    queryRows<{ action: string; actor_type: string; address: string | null; after: unknown }>(
      handle().db,
      sql`SELECT action, actor_type, address, after FROM audit_events WHERE billing_group_id = ${id} ORDER BY id`,
    );
  const ledgerSum = async (id: string) => {
    const [row] = await queryRows<{ total: string }>(
      handle().db,
      sql`SELECT COALESCE(SUM(amount_micros), 0)::text AS total FROM ledger_entries WHERE billing_group_id = ${id}`,
    );
    return BigInt(row.total);
  };

  it("creates, changes and moves money with a ledger entry and an audit event in the change's transaction", async () => {
    const db = handle().db;
    const group = await createAccount(
      db,
      { name: "Acme", currency: "EUR", openingBalanceMicros: 1_000_000n, accountcode: "acme-1" },
      BY,
    );
    const top = await moveBalance(db, group.id, { kind: "topup", amountMicros: 2_500_001n, description: "Wire" }, BY);
    expect(top.account.balance).toBe(3.500001);
    const adjusted = await moveBalance(
      db,
      group.id,
      { kind: "adjustment", amountMicros: -500_001n, description: "Refund" },
      BY,
    );
    expect(adjusted).toMatchObject({ kind: "adjustment", amount: -0.500001, account: { balance: 3 } });
    expect(await ledgerSum(group.id)).toBe(3_000_000n);
    const changed = await updateAccount(db, group.id, { creditLimitMicros: 5_000_000n, disabled: true }, BY);
    expect(changed).toMatchObject({ creditLimitMicros: 5_000_000n, disabledByOperator: true, disabled: true });
    expect((await events(group.id)).map((e) => [e.action, e.actor_type, e.address])).toEqual([
      ["account.created", "api_key", "203.0.113.7"],
      ["account.topped_up", "api_key", "203.0.113.7"],
      ["account.adjusted", "api_key", "203.0.113.7"],
      ["account.updated", "api_key", "203.0.113.7"],
    ]);
  });

  it("builds an account tree: a child in its parent's currency, refused under an unknown parent or another currency", async () => {
    const db = handle().db;
    const reseller = await createAccount(db, { name: "Reseller", currency: "EUR" }, BY);
    const sub = await createAccount(db, { name: "Sub", parentId: reseller.id }, BY);
    expect(sub).toMatchObject({ parentId: reseller.id, currency: "EUR" });
    const customer = await createAccount(db, { name: "Customer", currency: "EUR", parentId: sub.id }, BY);
    expect(customer.parentId).toBe(sub.id);
    await expect(createAccount(db, { name: "X", currency: "USD", parentId: sub.id }, BY)).rejects.toMatchObject({
      code: "currency_mismatch",
      status: 422,
      errors: [{ param: "currency" }],
    });
    await expect(createAccount(db, { name: "X", parentId: "bg_missing" }, BY)).rejects.toMatchObject({
      code: "unknown_parent",
      status: 422,
      errors: [{ param: "parentId" }],
    });
    const [{ n }] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM billing_groups WHERE name = 'X'`,
    );
    expect(n).toBe(0);
    const [event] = await events(customer.id);
    expect(event.after).toMatchObject({ parentId: sub.id });
    // GET /v1/accounts/{id} and the list show it; a root account's is null.
    expect(await getAccount(db, testPrincipal(null), customer.id)).toMatchObject({ parentId: sub.id });
    expect(await getAccount(db, testPrincipal(null), reseller.id)).toMatchObject({ parentId: null });
  });

  it("changes nothing, and records nothing, when it refuses", async () => {
    const db = handle().db;
    const a = await createAccount(db, { name: "A", currency: "USD", accountcode: "dup-1" }, BY);
    await expect(createAccount(db, { name: "B", currency: "USD", accountcode: "dup-1" }, BY)).rejects.toMatchObject({
      code: "conflict",
      errors: [{ param: "accountcode" }],
    });
    const b = await createAccount(db, { name: "B", currency: "USD" }, BY);
    await expect(updateAccount(db, b.id, { accountcode: "dup-1" }, BY)).rejects.toMatchObject({ code: "conflict" });
    await expect(updateAccount(db, "bg_missing", { name: "X" }, BY)).rejects.toMatchObject({ code: "not_found" });
    await expect(
      moveBalance(db, "bg_missing", { kind: "topup", amountMicros: 1n, description: "x" }, BY),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(moveBalance(db, a.id, { kind: "topup", amountMicros: -1n, description: "x" }, BY)).rejects.toThrow(
      RangeError,
    );
    expect((await events(b.id)).map((e) => e.action)).toEqual(["account.created"]);
    expect(await ledgerSum(a.id)).toBe(0n);
  });

  it("keeps every balance within 10^12 either way: 422 naming amount, nothing moved, even from a balance already past it", async () => {
    const db = handle().db;
    const bound = 1_000_000_000_000_000_000n;
    const a = await createAccount(db, { name: "Bound", currency: "EUR", openingBalanceMicros: 1_000_000n }, BY);
    const move = (kind: "topup" | "adjustment", amountMicros: bigint) =>
      moveBalance(db, a.id, { kind, amountMicros, description: "bound" }, BY);
    const refusal = { code: "invalid_request_body", errors: [{ param: "amount" }] };
    // The largest bigint: on a positive balance the sum overflowed the column.
    await expect(move("topup", 9_223_372_036_854_775_807n)).rejects.toMatchObject(refusal);
    await expect(move("topup", bound)).rejects.toMatchObject(refusal);
    await move("topup", bound - 1_000_000n);
    await expect(move("topup", 1n)).rejects.toMatchObject(refusal);
    await expect(move("adjustment", -2n * bound)).rejects.toMatchObject(refusal);
    await move("adjustment", -bound);
    await move("adjustment", -bound);
    await expect(move("adjustment", -1n)).rejects.toMatchObject(refusal);
    expect(await ledgerSum(a.id)).toBe(-bound);
    // A balance stored past the bound (before it existed): a movement that leaves it past the bound is refused, and
    // the range the statement checks cannot overflow (a 500 once).
    await db.execute(sql`UPDATE billing_groups SET balance_micros = 9223372036854775000 WHERE id = ${a.id}`);
    await expect(move("topup", bound)).rejects.toMatchObject(refusal);
    await expect(move("adjustment", -bound)).rejects.toMatchObject(refusal);
    await expect(move("adjustment", -1n)).rejects.toMatchObject(refusal);
  });

  it("the CLI's group commands call the same functions, recorded with the CLI as actor", async () => {
    const db = handle().db;
    const run = (argv: string[]) => runAdminCommand(db, argv) as Promise<Record<string, unknown>>;
    const created = await run(["groups", "create", "--name", "Cli", "--currency", "usd", "--balance", "10"]);
    const id = String(created.id);
    expect(created).toMatchObject({ balance: "10", currency: "USD" });
    expect(await run(["groups", "topup", "--group", id, "--amount", "2.5"])).toMatchObject({ balance: "12.5" });
    expect(
      await run(["groups", "adjust", "--group", id, "--amount=-0.5", "--description", "Goodwill back"]),
    ).toMatchObject({ balance: "12" });
    expect(
      await run(["groups", "update", "--group", id, "--credit-limit", "3", "--accountcode", "cli-1"]),
    ).toMatchObject({ creditLimit: "3", accountcode: "cli-1" });
    expect(await run(["groups", "disable", "--group", id])).toMatchObject({ disabled: true });
    expect(await run(["groups", "enable", "--group", id])).toMatchObject({ disabled: false });
    await expect(run(["groups", "topup", "--group", "bg_missing", "--amount", "1"])).rejects.toThrow(
      /no billing group/,
    );
    const recorded = await events(id);
    expect(recorded.map((e) => e.action)).toEqual([
      "account.created",
      "account.topped_up",
      "account.adjusted",
      "account.updated",
      "account.updated",
      "account.updated",
    ]);
    expect(new Set(recorded.map((e) => e.actor_type))).toEqual(new Set(["cli"]));
    expect(await ledgerSum(id)).toBe(12_000_000n);
  });
});
