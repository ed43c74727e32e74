import fs from "node:fs";
import { testPrincipal } from "@/lib/testing/test-principal";
import path from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import { createBillingGroup, getBillingGroup } from "@/lib/billing/groups";
import { queryRows } from "@/lib/db/client";
import { importBuyRates, importSellRates } from "@/lib/rating/import-rates";
import { parseRateCsv } from "@/lib/rating/rate-csv";
import { createSupplier } from "@/lib/rating/suppliers";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { cdrBatchResultSchema } from "./api-schemas";
import { ingestRequest } from "./ingest-request";

const writer = testPrincipal(null, ["cdrs:write"]);
const fixture = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8")) as Record<string, unknown>;

let n = 0;
const native = (groupId: string, extra: Record<string, unknown> = {}) => ({
  uuid: `req-${process.pid}-${++n}-${Math.random().toString(36).slice(2)}`,
  direction: "outbound",
  from: "4930111",
  to: "4420711",
  startTime: "2025-03-01T10:00:00Z",
  answerTime: "2025-03-01T10:00:01Z",
  endTime: "2025-03-01T10:00:31Z",
  billingGroupId: groupId,
  ...extra,
});

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const e = await promise.catch((error: unknown) => error);
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describeOnEngines("POST /v1/cdrs domain", (handle) => {
  let groupId: string;
  beforeAll(async () => {
    const group = await createBillingGroup(handle().db, {
      name: "Acme",
      currency: "GBP",
      openingBalanceMicros: 5_000_000n,
      accountcode: "ACME-001",
    });
    groupId = group.id;
    await importSellRates(handle().db, groupId, parseRateCsv("prefix,rate,increment\n4420,0.012,60/60\n"));
    const supplier = await createSupplier(handle().db, { name: "Carrier A", gatewayName: "carrier_a" });
    await importBuyRates(handle().db, supplier.id, parseRateCsv("prefix,rate,increment\n44,0.004,1/1\n"));
  });
  const count = async () =>
    Number((await queryRows<{ n: bigint }>(handle().db, sql`SELECT count(*)::bigint AS n FROM calls`))[0].n);

  it("answers 201 with the stored call, then 200 for the replay", async () => {
    const body = native(groupId);
    const first = await ingestRequest(handle().db, writer, body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      uuid: body.uuid,
      price: 0.012,
      billDuration: 60,
      currency: "GBP",
      billingGroupId: groupId,
      rated: true,
    });
    expect(first.body).not.toHaveProperty("buyCost");
    expect(first.headers.Location).toMatch(/^\/v1\/calls\/\d+$/);
    const again = await ingestRequest(handle().db, writer, body);
    expect(again.status).toBe(200);
    expect(again.headers["Idempotent-Replayed"]).toBe("true");
    expect((again.body as { id: string }).id).toBe((first.body as { id: string }).id);
  });

  it("ingests the FreeSWITCH fixture through the colleague's mapper, with accountcode and gateway", async () => {
    const answer = await ingestRequest(
      handle().db,
      testPrincipal(null, ["cdrs:write", "calls:read_cost"]),
      fixture("freeswitch-answered.json"),
    );
    expect(answer.status).toBe(201);
    // 125.401 s answered -> 126 -> 180 s on 60/60 at 0.012 = 0.036; buy 126 s at 0.004/min = 0.0084.
    expect(answer.body).toMatchObject({
      uuid: "0f7d2c9e-5a41-4b8e-9d36-2c1e8f4a7b90",
      to: "442071838750",
      billingGroupId: groupId,
      duration: 133,
      billDuration: 180,
      price: 0.036,
      buyCost: 0.0084,
      margin: 0.0276,
      answerTime: "2025-01-01T10:00:06.994Z",
    });
  });

  it("answers a batch with one result per CDR, 201 if any was created, 200 for a pure replay", async () => {
    const a = native(groupId);
    const b = native(groupId, { to: "3361234" });
    const first = await ingestRequest(handle().db, writer, { cdrs: [a, b] });
    expect(first.status).toBe(201);
    const parsed = cdrBatchResultSchema.parse(first.body);
    expect(parsed.results.map((r) => [r.uuid, r.status, r.rated])).toEqual([
      [a.uuid, "created", true],
      [b.uuid, "created", false],
    ]);
    expect(parsed.summary).toEqual({ received: 2, created: 2, duplicate: 0, unrated: 1 });
    const replay = await ingestRequest(handle().db, writer, { cdrs: [b, a] });
    expect(replay.status).toBe(200);
    expect(cdrBatchResultSchema.parse(replay.body).summary).toMatchObject({ created: 0, duplicate: 2 });
  });

  it("rejects a batch with a malformed CDR with 422 naming the field, storing nothing", async () => {
    const before = await count();
    const balance = (await getBillingGroup(handle().db, groupId))!.balanceMicros;
    const error = await apiError(
      ingestRequest(handle().db, writer, {
        cdrs: [native(groupId), native(groupId), native(groupId, { startTime: "yesterday" })],
      }),
    );
    expect(error.status).toBe(422);
    expect(error.errors?.map((e) => e.param)).toEqual(["cdrs[2].startTime"]);
    const fs = await apiError(
      ingestRequest(handle().db, writer, { cdrs: [native(groupId), { variables: { uuid: "x" } }] }),
    );
    expect(fs.errors?.[0].param).toMatch(/^cdrs\[1\]\./);
    expect(await count()).toBe(before);
    expect((await getBillingGroup(handle().db, groupId))!.balanceMicros).toBe(balance);
  });

  it("answers 422 naming the field for an unknown group and 409 for changed content", async () => {
    const unknown = await apiError(ingestRequest(handle().db, writer, { cdrs: [native(groupId), native("bg_nope")] }));
    expect(unknown.status).toBe(422);
    expect(unknown.errors).toEqual([{ param: "cdrs[1].billingGroupId", message: expect.stringContaining("bg_nope") }]);
    const body = native(groupId);
    await ingestRequest(handle().db, writer, body);
    const conflict = await apiError(ingestRequest(handle().db, writer, { ...body, to: "4420999" }));
    expect(conflict.status).toBe(409);
    expect(conflict.errors).toEqual([{ param: "to", message: "differs from the stored call" }]);
  });

  it("lets a key bound to a group report only that group's calls, and fills it in", async () => {
    const other = await createBillingGroup(handle().db, { name: "Other", currency: "GBP" });
    const bound = testPrincipal(other.id, ["cdrs:write"]);
    const { billingGroupId: _omit, ...withoutGroup } = native(groupId);
    void _omit;
    const own = await ingestRequest(handle().db, bound, withoutGroup);
    expect(own.body).toMatchObject({ billingGroupId: other.id, rated: false });
    const foreign = await apiError(ingestRequest(handle().db, bound, native(groupId)));
    expect(foreign.errors?.[0].param).toBe("billingGroupId");
  });

  it("refuses an empty or oversized batch", async () => {
    expect((await apiError(ingestRequest(handle().db, writer, { cdrs: [] }))).errors?.[0].param).toBe("cdrs");
    const many = Array.from({ length: 1001 }, () => native(groupId));
    expect((await apiError(ingestRequest(handle().db, writer, { cdrs: many }))).status).toBe(422);
    expect((await apiError(ingestRequest(handle().db, writer, [1, 2]))).errors?.[0].param).toBe("(body)");
  });
});
