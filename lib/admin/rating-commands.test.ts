import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

describeOnEngines("rates import and rerate commands", (handle, engine) => {
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-cli-rates-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const deck = (name: string, text: string) => {
    const file = path.join(dir, `${engine}-${name}.csv`);
    fs.writeFileSync(file, text);
    return file;
  };
  const decks = async (id: string) =>
    (
      await queryRows<{ n: number }>(
        handle().db,
        sql`SELECT count(*)::int AS n FROM rate_decks WHERE billing_group_id = ${id}`,
      )
    )[0].n;

  it("imports dated decks, dry-runs a diff without writing, and refuses a bad --effective-from", async () => {
    const group = await createBillingGroup(handle().db, { name: "CLI", currency: "USD" });
    const first = await runAdminCommand(handle().db, [
      "rates",
      "import",
      "--group",
      group.id,
      "--file",
      deck("a", "prefix,rate,increment\n44,0.02,1/1\n33,0.05,60/60\n"),
    ]);
    expect(first).toMatchObject({ billingGroupId: group.id, imported: 2, effectiveFrom: "1970-01-01T00:00:00.000Z" });
    // The CLI's import is audited like /v1's (the same function), with the CLI as the actor, and the deck keeps it.
    const audited = await queryRows<{ actor_type: string; target_id: string; by: string | null }>(
      handle().db,
      sql`SELECT e.actor_type, e.target_id, d.imported_by_type AS by FROM audit_events e
          JOIN rate_decks d ON d.id::text = e.target_id
          WHERE e.action = 'rate_deck.imported' AND e.billing_group_id = ${group.id}`,
    );
    expect(audited).toEqual([
      { actor_type: "cli", target_id: String((first as { deckId: number }).deckId), by: "cli" },
    ]);

    const file = deck("b", "prefix,rate,increment,connectFee,minCharge\n44,0.03,1/1,0.01,\n49,0.01,1/1,,\n");
    const dry = await runAdminCommand(handle().db, [
      "rates",
      "import",
      "--group",
      group.id,
      "--file",
      file,
      "--effective-from",
      "2026-12-01T00:00:00Z",
      "--dry-run",
    ]);
    expect(dry).toMatchObject({
      dryRun: true,
      effectiveFrom: "2026-12-01T00:00:00.000Z",
      added: [{ prefix: "49", rate: "0.01" }],
      removed: [{ prefix: "33", rate: "0.05", increment: "60/60" }],
      changed: [{ prefix: "44", old: { rate: "0.02", connectFee: null }, new: { rate: "0.03", connectFee: "0.01" } }],
      unchanged: 0,
    });
    expect(await decks(group.id)).toBe(1);

    const real = await runAdminCommand(handle().db, [
      "rates",
      "import",
      "--group",
      group.id,
      "--file",
      file,
      "--effective-from",
      "2026-12-01",
    ]);
    expect(real).toMatchObject({ effectiveFrom: "2026-12-01T00:00:00.000Z", imported: 2 });
    expect(await decks(group.id)).toBe(2);
    await expect(
      runAdminCommand(handle().db, [
        "rates",
        "import",
        "--group",
        group.id,
        "--file",
        file,
        "--effective-from",
        "2026-12-01",
      ]),
    ).rejects.toThrow(/already effective from/);
    await expect(
      runAdminCommand(handle().db, [
        "rates",
        "import",
        "--group",
        group.id,
        "--file",
        file,
        "--effective-from",
        "next week",
      ]),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(runAdminCommand(handle().db, ["rerate", "--since", "yesterday"])).rejects.toBeInstanceOf(UsageError);
    // --since reads instants as --effective-from does: with a zone, or a date at UTC midnight.
    await expect(
      runAdminCommand(handle().db, ["rerate", "--since", "2026-01-01T00:00:00+0100"]),
    ).rejects.toBeInstanceOf(UsageError);
    expect(await runAdminCommand(handle().db, ["rerate", "--group", group.id, "--since", "2026-01-01"])).toMatchObject({
      since: "2026-01-01T00:00:00.000Z",
    });
    expect(
      await runAdminCommand(handle().db, ["rerate", "--group", group.id, "--since", "2026-01-01T00:00:00Z"]),
    ).toMatchObject({
      examined: 0,
      rerated: 0,
      adjusted: "0",
    });
  });
});
