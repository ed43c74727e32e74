import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createBillingGroup } from "@/lib/billing/groups";
import { openDatabase } from "@/lib/db/client";
import { importSellRates } from "@/lib/rating/import-rates";
import { createTestDatabase, type Engine } from "@/lib/testing/engines";

/** A new database with one account that calls are posted to, and where its server keeps its files. */
export interface FreshAccount {
  workDir: string;
  dataDir: string;
  /** The new PostgreSQL database's URL; undefined on PGlite (the database is in dataDir). */
  databaseUrl: string | undefined;
  logFile: string;
  /** The account's billing group. */
  billingGroupId: string;
  /** A cdrs:write and calls:read key of the account. */
  key: string;
  /** Drops the database and removes workDir (after the server stopped). */
  remove(): Promise<void>;
}

/**
 * For the benches that post to a fresh server (ingest-fresh.ts, listing-after-ingest.ts): an empty database of the
 * engine with one EUR account whose balance never runs out, one sell rate (44, 0.01 per minute, 60/60) and its key.
 */
export async function freshAccount(engine: Engine, label: string): Promise<FreshAccount> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `cb-${label}-${engine}-`));
  const dataDir = path.join(workDir, "data");
  const created = engine === "postgres" ? await createTestDatabase() : undefined;
  const databaseUrl = created?.url;
  const remove = async () => {
    await created?.drop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const handle = await openDatabase(databaseUrl ? { url: databaseUrl } : { dir: dataDir, role: "cli" });
    try {
      const group = await createBillingGroup(handle.db, {
        name: label,
        currency: "EUR",
        openingBalanceMicros: 10n ** 15n,
      });
      await importSellRates(handle.db, group.id, [
        { prefix: "44", rate: "0.01", increment: { min: 60, interval: 60 } },
      ]);
      const { key } = await createApiKey(handle.db, { scopes: ["cdrs:write", "calls:read"], billingGroupId: group.id });
      const logFile = path.join(workDir, "server.log");
      return { workDir, dataDir, databaseUrl, logFile, billingGroupId: group.id, key, remove };
    } finally {
      await handle.close();
    }
  } catch (e) {
    await remove();
    throw e;
  }
}

const FIRST_CALL = Date.parse("2025-11-01T00:00:00Z");

/**
 * The i-th call those benches post: one a minute from 2025-11-01 (months that have closed: a backlog or an import),
 * 70 % outbound, one in eight unanswered, 5-404 s, to a spread of UK numbers (the account's one rate).
 */
export function postedCdr(uuid: string, i: number) {
  const t = FIRST_CALL + i * 60_000;
  return {
    uuid,
    direction: i % 10 < 7 ? "outbound" : "inbound",
    from: `1555${String(i % 1e7).padStart(7, "0")}`,
    to: `44${String((i * 48271) % 1e10).padStart(10, "0")}`,
    startTime: new Date(t).toISOString(),
    answerTime: i % 8 === 0 ? null : new Date(t + 2000).toISOString(),
    endTime: new Date(t + 2000 + (5 + (i % 400)) * 1000).toISOString(),
    hangupCause: i % 8 === 0 ? "NO_ANSWER" : "NORMAL_CLEARING",
  };
}
