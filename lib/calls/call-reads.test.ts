import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

// Every read of calls goes through lib/calls (CallReads, call-store.ts), so a second store can answer the same
// questions. This holds the rule on the source: SQL over `calls` outside lib/calls is allowed only where it writes.

const ROOTS = ["lib", "app", "cli", "components"];

/** Files outside lib/calls that may name `calls` in SQL, and why. */
const ALLOWED = new Map<string, string>([
  ["lib/ingest/ingest-cdrs.ts", "the writer: inserts calls and holds a replay to the call it stored"],
  ["lib/rating/rerate.ts", "the writer: re-rates calls under FOR UPDATE"],
  ["lib/demo/run-demo.ts", "whether the database is still empty before demo data is written"],
  ["lib/demo/demo-tiers.ts", "the demo's reseller tier: its first call's date and how many calls it wrote"],
  ["lib/history/erase-calls.ts", "the writer: erases one account's calls (audited) in both tiers"],
  // Moving a month reads the rows archiveCalls then removes (archivableCalls' predicate), to copy and verify them.
  ["lib/history/move-month.ts", "the history tier's mover: copies, sums and (through archiveCalls) removes a month"],
  // The tier charges of those same rows (joined to calls for archivableCalls' predicate), copied and verified with them.
  // ClickHouse's own calls table, not PostgreSQL's: call_keys is fed by a view on it and copied in from it once.
  ["lib/history/history-store.ts", "the history store's schema: call_keys fed and backfilled from ClickHouse's calls"],
  ["lib/history/history-tier-charges.ts", "the mover's tier charges: copies and sums a month's moved calls' charges"],
  // The quality windows read the last 15 minutes to 24 hours: calls a history tier (older, invoiced months) never holds.
  ["lib/quality/read-windows.ts", "GET /v1/quality: counts over the last minutes to a day of calls, always hot"],
  ["lib/quality/evaluate-quality.ts", "the quality evaluator: each threshold's window of recent calls, always hot"],
]);

/** `FROM calls`, `JOIN calls`, `.from(calls)`, `${calls}`: the table read in SQL or through Drizzle. */
const CALLS_SQL = /\b(?:FROM|JOIN)\s+calls\b|\.from\(calls\)|\$\{calls\}/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

it("no file outside lib/calls reads calls with its own SQL (writers and test support aside)", () => {
  const offenders = ROOTS.flatMap((root) => sources(root))
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => !file.startsWith("lib/calls/") && !/^lib\/(?:[^/]+\/)?testing\//.test(file))
    .filter((file) => !ALLOWED.has(file))
    .filter((file) => CALLS_SQL.test(fs.readFileSync(file, "utf8")));
  expect(offenders).toEqual([]);
});
