// `npx tsx bench/authorize-profile.ts [--engine postgres|pglite] [--n 2000]`
// Where an authorization's time goes (issue 31 item 5): in process, no HTTP, on a fresh database, `authorizeCall` in a
// sequential loop for one account, without limits, with every rule on (none binding), and (issue 32) without limits
// for a customer two tiers down (reseller > sub-reseller > customer: held at every tier): the statements each one
// sends (a recording Drizzle logger, so BEGIN/COMMIT are not counted) and its p50/p99. Prints one JSON object. Not a test.
import { parseArgs } from "node:util";
import { authorizeCall } from "@/lib/authorizations/authorize";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { putLimits } from "@/lib/limits/manage-limits";
import { limitsBodySchema } from "@/lib/limits/schemas";
import { importSellRates } from "@/lib/rating/import-rates";
import { openTestDb, type Engine } from "@/lib/testing/engines";
import { recordingDb } from "@/lib/testing/recording-db";
import { percentile, round } from "./stats";

const { values } = parseArgs({
  options: { engine: { type: "string", default: "postgres" }, n: { type: "string", default: "2000" } },
});
const engine = values.engine as Engine;
const n = Number(values.n);

const EVERY_RULE = {
  maxConcurrentCalls: 1_000_000,
  callsPerSecond: 100_000,
  dailySpend: "1000000000.00",
  monthlySpend: "1000000000.00",
  blockedPrefixes: ["4490", "4470"],
  allowedPrefixes: ["44"],
  distinctDestinations: { max: 1_000_000, windowSeconds: 60 },
  callsPerPrefix: { max: 1_000_000, windowSeconds: 60 },
};

async function main() {
  const handle = await openTestDb(engine);
  try {
    const rec = await recordingDb(handle, engine);
    const result: Record<string, unknown> = { engine, n };
    for (const [phase, limits, depth] of [
      ["noLimits", null, 0],
      ["everyRule", EVERY_RULE, 0],
      ["twoTiersUp", null, 2],
    ] as const) {
      let parentId: string | null = null;
      let g!: Awaited<ReturnType<typeof createBillingGroup>>;
      for (let level = 0; level <= depth; level++) {
        g = await createBillingGroup(handle.db, {
          name: phase,
          currency: "EUR",
          openingBalanceMicros: 10n ** 15n,
          parentId,
        });
        await importSellRates(handle.db, g.id, [{ prefix: "44", rate: "0.01", increment: { min: 60, interval: 60 } }]);
        parentId = g.id;
      }
      const principal: Principal = {
        keyId: "key_bench",
        scopes: new Set(["cdrs:write", "limits:write", "calls:read"]),
        billingGroupId: g.id,
        rateCardVersion: null,
        via: "api_key",
      };
      if (limits)
        await putLimits(
          handle.db,
          { ...principal, billingGroupId: null },
          limitsBodySchema.parse({ ...limits, billingGroupId: g.id }),
          {
            actor: { type: "cli", id: null, label: "bench" },
            address: null,
          },
        );
      const call = (i: number) =>
        authorizeCall(rec.db, principal, {
          uuid: `${phase}-${i}`,
          destination: `44${String((i * 48271) % 1e10).padStart(10, "0")}`,
          maxDurationSeconds: 600,
        });
      for (let i = 0; i < 100; i++) await call(-i - 1); // warm-up
      const before = rec.log.length;
      await rec.during(phase, () => call(0));
      const statements = rec.log.slice(before).map((s) => s.query.replace(/\s+/g, " ").slice(0, 90));
      const ms: number[] = [];
      for (let i = 1; i < n; i++) {
        const t = performance.now();
        await call(i);
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      result[phase] = {
        statements: statements.length,
        p50Ms: round(percentile(ms, 50), 3),
        p99Ms: round(percentile(ms, 99), 3),
        sent: statements,
      };
    }
    process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  } finally {
    await handle.close();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
