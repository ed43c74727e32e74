import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/lib/auth/principal";
import { createBillingGroup } from "@/lib/billing/groups";
import { exportCallsCsv } from "@/lib/calls/export-csv";
import { listCalls } from "@/lib/calls/list-calls";
import { queryRows, type Db } from "@/lib/db/client";
import { ApiError, bodyParamErrors } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { testPrincipal } from "@/lib/testing/test-principal";
import { waitUntil } from "@/lib/testing/wait-until";
import { checkDownloadLink, downloadLink } from "./download-link";
import { getExport } from "./get-export";
import { readExportFile } from "./read-export-file";
import { deleteExpiredExports, EXPORT_WORKER_DEFAULTS, runNextExport, startExportWorker } from "./run-exports";
import { createExportBodySchema } from "./schemas";
import { startExport } from "./start-export";

process.env.CURSOR_SECRET ??= "exports-test-secret";

const ORIGIN = "http://localhost:3000";
const small = { ...EXPORT_WORKER_DEFAULTS, pageSize: 3 };

async function fileOf(db: Db, principal: Principal, id: string): Promise<string> {
  const answer = await getExport(db, principal, id, ORIGIN);
  const url = new URL(answer.download!.url);
  const file = await readExportFile(db, principal, id, {
    expires: url.searchParams.get("expires")!,
    signature: url.searchParams.get("signature")!,
  });
  return new Response(file.stream).text();
}

/** POST /v1/exports's body as apiRoute parses it: the operation's schema, each field at fault named by its path. */
function parseCreateExport(body: unknown) {
  const parsed = createExportBodySchema.safeParse(body);
  if (!parsed.success) throw new ApiError("invalid_request_body", "invalid", bodyParamErrors(parsed.error.issues));
  return parsed.data;
}

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error("did not throw");
}

describe("export requests and links", () => {
  it("refuses bad filters with 422 naming the field, and unknown fields", () => {
    const bad = thrown(() => parseCreateExport({ filters: { direction: "sideways", pageSize: "5" } }));
    expect(bad.code).toBe("invalid_request_body");
    expect(bad.errors?.map((e) => e.param).sort()).toEqual(["filters.direction", "filters.pageSize"]);
    const order = thrown(() =>
      parseCreateExport({ filters: { "startTime[gte]": "2026-02-01", "startTime[lte]": "2026-01-01" } }),
    );
    expect(order.errors?.[0].param).toBe("filters.startTime[gte]");
    expect(thrown(() => parseCreateExport([])).code).toBe("invalid_request_body");
    expect(parseCreateExport({}).filters).toEqual({});
  });

  it("signs links per export and expiry: 404 when altered, 410 once expired", () => {
    const link = new URL(downloadLink(ORIGIN, "exp_a", new Date(Date.now() + 60_000)).url);
    const expires = link.searchParams.get("expires")!;
    const signature = link.searchParams.get("signature")!;
    expect(() => checkDownloadLink("exp_a", expires, signature)).not.toThrow();
    expect(thrown(() => checkDownloadLink("exp_b", expires, signature)).code).toBe("not_found");
    expect(thrown(() => checkDownloadLink("exp_a", String(Number(expires) + 1), signature)).code).toBe("not_found");
    expect(thrown(() => checkDownloadLink("exp_a", expires, signature, Date.now() + 61_000)).code).toBe("link_expired");
  });
});

describeOnEngines("background exports", (handle) => {
  let groupId: string;
  let otherId: string;

  beforeAll(async () => {
    groupId = (await createBillingGroup(handle().db, { name: "A", currency: "USD" })).id;
    otherId = (await createBillingGroup(handle().db, { name: "B", currency: "USD" })).id;
    await handle().db.execute(sql`INSERT INTO suppliers (id, name) VALUES ('sup_x', 'Carrier')`);
    for (let i = 0; i < 8; i++) {
      const start = new Date(Date.UTC(2026, 10, 1, 12, 0, i)).toISOString();
      await handle().db
        .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
          duration, bill_duration, currency, rated, price_micros, buy_cost_micros, supplier_id, hangup_cause)
        VALUES (${`u${i}`}, ${groupId}, ${i % 2 ? "inbound" : "outbound"}, '100', ${`4420${i}`}, ${start}::timestamptz,
          ${start}::timestamptz, 60, 60, 'USD', true, ${1_000n + BigInt(i)}, 2000, 'sup_x', 'NORMAL_CLEARING')`);
    }
    await handle().db
      .execute(sql`INSERT INTO calls (uuid, billing_group_id, direction, from_number, to_number, start_time, end_time,
        duration, bill_duration, currency, rated, price_micros)
      VALUES ('other', ${otherId}, 'inbound', '1', '2', now(), now(), 1, 1, 'USD', true, 5)`);
  });

  it("writes the same CSV as GET /v1/calls/export, in chunks, with progress and an estimate", async () => {
    const db = handle().db;
    for (const scopes of [["calls:read"], ["calls:read_cost"]] as const) {
      const principal = testPrincipal(groupId, [...scopes]);
      const started = await startExport(db, principal, {});
      expect(started).toMatchObject({ status: "queued", rowsDone: 0, rowsEstimated: null, download: null });
      expect(await runNextExport(db, small)).toBe(true);
      const done = await getExport(db, principal, started.id, ORIGIN);
      expect(done).toMatchObject({ status: "succeeded", rowsDone: 8, rowsEstimated: 8, error: null });
      expect(done.download?.url).toMatch(new RegExp(`^${ORIGIN}/v1/exports/${started.id}/download\\?expires=`));
      const expected = await new Response(await exportCallsCsv(db, principal, {})).text();
      expect(await fileOf(db, principal, started.id)).toBe(expected);
      const [{ chunks }] = await queryRows<{ chunks: number }>(
        db,
        sql`SELECT count(*)::int AS chunks FROM export_chunks WHERE export_id = ${started.id}`,
      );
      expect(chunks).toBe(3); // 8 calls in pages of 3
    }
    expect(await runNextExport(db, small)).toBe(false);
  });

  it("keeps cost columns out of a calls:read key's file, and another group's calls out of a bound key's", async () => {
    const db = handle().db;
    const principal = testPrincipal(groupId, ["calls:read"]);
    const started = await startExport(db, principal, { billingGroupId: otherId, direction: "inbound" });
    await runNextExport(db, small);
    const csv = await fileOf(db, principal, started.id);
    expect(csv.trimEnd().split("\r\n")).toHaveLength(1);
    expect(csv).not.toMatch(/buyCost|margin|supplierId/);
    await expect(startExport(db, principal, { supplierId: "sup_x" })).rejects.toMatchObject({
      code: "insufficient_scope",
    });
  });

  it("shows an export only to the key that started it", async () => {
    const db = handle().db;
    const mine = testPrincipal(groupId, ["calls:read"]);
    const started = await startExport(db, mine, {});
    const sameGroupOtherKey = { ...mine, keyId: "key_other" };
    await expect(getExport(db, sameGroupOtherKey, started.id, ORIGIN)).rejects.toMatchObject({ code: "not_found" });
    await expect(getExport(db, mine, "exp_unknown", ORIGIN)).rejects.toMatchObject({ code: "not_found" });
    await expect(getExport(db, mine, "../x", ORIGIN)).rejects.toMatchObject({ code: "not_found" });
    await runNextExport(db, small);
  });

  it("resumes after the page a dead process wrote last, and gives up after too many claims", async () => {
    const db = handle().db;
    const principal = testPrincipal(groupId, ["calls:read_cost"]);
    const started = await startExport(db, principal, {});
    await runNextExport(db, small);
    const complete = await fileOf(db, principal, started.id);
    // Back to where a process that died after its first page left it: chunk 0 written with the first page's cursor,
    // the lease lapsed.
    const firstPage = await listCalls(db, principal, {}, { pageSize: small.pageSize });
    await db.execute(sql`DELETE FROM export_chunks WHERE export_id = ${started.id} AND seq > 0`);
    await db.execute(
      sql`UPDATE exports SET status = 'running', chunks = 1, rows_done = ${small.pageSize}, completed_at = NULL,
            cursor = ${firstPage.nextCursor!}, leased_until = now() - interval '1 second'
          WHERE id = ${started.id}`,
    );
    expect(await runNextExport(db, small)).toBe(true);
    const resumed = await getExport(db, principal, started.id, ORIGIN);
    expect(resumed).toMatchObject({ status: "succeeded", rowsDone: 8 });
    expect(await fileOf(db, principal, started.id)).toBe(complete);

    const doomed = await startExport(db, principal, {});
    await db.execute(
      sql`UPDATE exports SET status = 'running', attempts = ${small.maxAttempts}, leased_until = now() - interval '1 second'
          WHERE id = ${doomed.id}`,
    );
    await runNextExport(db, small);
    const failed = await getExport(db, principal, doomed.id, ORIGIN);
    expect(failed).toMatchObject({ status: "failed", download: null });
    expect(failed.error).toMatch(/interrupted 3 times/);
  });

  it("a claimed job is not claimed again while its lease lives, and the worker drains the queue", async () => {
    const db = handle().db;
    const principal = testPrincipal(groupId, ["calls:read"]);
    const held = await startExport(db, principal, {});
    await db.execute(
      sql`UPDATE exports SET status = 'running', attempts = 1, leased_until = now() + interval '1 hour' WHERE id = ${held.id}`,
    );
    const queued = await startExport(db, principal, { direction: "outbound" });
    const worker = startExportWorker(db, { ...small, pollMs: 20 });
    try {
      await waitUntil(
        async () => (await getExport(db, principal, queued.id, ORIGIN)).status === "succeeded",
        "the worker to finish the queued export",
      );
    } finally {
      await worker.stop();
    }
    expect(await getExport(db, principal, queued.id, ORIGIN)).toMatchObject({ status: "succeeded", rowsDone: 4 });
    expect(await getExport(db, principal, held.id, ORIGIN)).toMatchObject({ status: "running", rowsDone: 0 });
    await db.execute(sql`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = ${held.id}`);
    expect(await deleteExpiredExports(db)).toBe(1);
    await expect(getExport(db, principal, held.id, ORIGIN)).rejects.toMatchObject({ code: "not_found" });
  });
});
