import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { waitUntil } from "@/lib/testing/wait-until";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// Quality windows and alerts over /v1 (docs/contract.md "Quality windows and alerts"): the windows read from calls
// ingested over HTTP, thresholds set by a platform key for a new account, and the server's own evaluator (every
// QUALITY_INTERVAL_MS, short on these servers) firing quality.asr_low once into the audit log (in the transaction that
// writes the webhook event), with the threshold's state shown by GET.

interface Problem {
  code: string;
  errors?: { param: string; message: string }[];
}
interface QualityWindow {
  billingGroupId: string;
  prefix?: string | null;
  attempts: number;
  answered: number;
  asr: number | null;
  acd: number | null;
  pdd: number | null;
  pddCalls: number;
}
interface Threshold {
  prefix: string | null;
  asrMin: number | null;
  asrLow: boolean;
  evaluatedAt: string | null;
}
interface AuditEvent {
  action: string;
  actor: { type: string };
  after: Record<string, unknown> | null;
}

const params = (body: unknown) => ((body as Problem).errors ?? []).map((e) => e.param).sort();

function send<T>(server: ApiServer, key: KeyName, method: string, path: string, body?: unknown) {
  return api<T>(server, path, { key, method, body });
}

describe.each(apiServers())("quality on $engine", (server) => {
  it("reads the windows of ingested calls, and fires quality.asr_low once when the account's ASR falls below its threshold", async () => {
    const account = await send<{ id: string }>(server, "platformProvision", "POST", "/v1/accounts", {
      name: `Quality ${randomUUID().slice(0, 8)}`,
      currency: "USD",
    });
    expect(account.status, account.text).toBe(201);
    const id = account.body.id;
    const thresholds = await send<{ thresholds: Threshold[] }>(
      server,
      "platformAlerts",
      "PUT",
      "/v1/quality/thresholds",
      {
        billingGroupId: id,
        thresholds: [
          { prefix: "+3519", windowMinutes: 30, minCalls: 4, asrMin: 50 },
          { windowMinutes: 30, minCalls: 100, asrMin: 90 },
        ],
      },
    );
    expect(thresholds.status, thresholds.text).toBe(200);
    expect(thresholds.body.thresholds.map((t) => [t.prefix, t.asrMin, t.asrLow])).toEqual([
      [null, 90, false],
      ["3519", 50, false],
    ]);

    // Four outbound calls to 3519..., one answered (25 %), each with a post-dial delay; one inbound call.
    const start = Date.now() - 120_000;
    const at = (ms: number) => new Date(start + ms).toISOString();
    for (const [answered, pdd, direction] of [
      [true, 1.5, "outbound"],
      [false, 2.5, "outbound"],
      [false, 3, "outbound"],
      [false, 3, "outbound"],
      [true, null, "inbound"],
    ] as const) {
      const res = await api(server, "/v1/cdrs", {
        key: "ingestPlatform",
        body: {
          uuid: randomUUID(),
          direction,
          from: "15550001",
          to: "351911234567",
          startTime: at(0),
          answerTime: answered ? at(2_000) : null,
          endTime: answered ? at(32_000) : at(2_000),
          pdd,
          billingGroupId: id,
        },
      });
      expect(res.status, res.text).toBe(201);
    }

    const windows = await api<{ windows: QualityWindow[]; window: string; groupBy: string }>(
      server,
      `/v1/quality${query({ window: "15m", account: id })}`,
      { key: "platformRead" },
    );
    expect(windows.status, windows.text).toBe(200);
    expect(windows.body).toMatchObject({ window: "15m", groupBy: "account" });
    expect(windows.body.windows).toEqual([
      { billingGroupId: id, attempts: 4, answered: 1, asr: 25, acd: 30, pdd: 2500, pddCalls: 4 },
    ]);
    const byPrefix = await api<{ windows: QualityWindow[] }>(
      server,
      `/v1/quality${query({ window: "1h", groupBy: "prefix", account: id })}`,
      { key: "platformRead" },
    );
    expect(byPrefix.body.windows.map((w) => w.attempts)).toEqual([4]);
    expect(byPrefix.body.windows[0]).toHaveProperty("prefix");

    // The server's evaluator judges the 3519 window (4 calls >= minCalls) and fires once; the account-wide
    // threshold needs 100 calls and is not judged.
    const audit = async () =>
      (
        await api<{ events: AuditEvent[] }>(server, `/v1/audit-events${query({ account: id, action: "quality.*" })}`, {
          key: "platformAudit",
        })
      ).body.events;
    await waitUntil(async () => (await audit()).length > 0, "the quality.asr_low audit event");
    const read = async () =>
      (
        await api<{ thresholds: Threshold[] }>(server, `/v1/quality/thresholds${query({ account: id })}`, {
          key: "platformAlerts",
        })
      ).body.thresholds;
    // Two later rounds judge it again (evaluatedAt moves) without firing again.
    const first = (await read())[1].evaluatedAt!;
    await waitUntil(async () => {
      const later = (await read())[1].evaluatedAt;
      return later !== null && Date.parse(later) > Date.parse(first) + 1;
    }, "two more rounds");
    const events = await audit();
    expect(events.map((e) => `${e.action} ${e.actor.type}`)).toEqual(["quality.asr_low system"]);
    expect(events[0].after).toMatchObject({
      billingGroupId: id,
      prefix: "3519",
      metric: "asr",
      value: 25,
      threshold: 50,
    });
    expect((await read()).map((t) => [t.prefix, t.asrLow])).toEqual([
      [null, false],
      ["3519", true],
    ]);
  });

  it("checks scopes, reach and parameters", async () => {
    const c = server.groups.c.id;
    expect((await api(server, "/v1/quality", { key: "alertsReadC" })).status).toBe(403);
    expect((await api(server, "/v1/quality/thresholds", { key: "readA" })).status).toBe(403);
    expect((await send(server, "alertsReadC", "PUT", "/v1/quality/thresholds", { thresholds: [] })).status).toBe(403);
    const own = await api<{ billingGroupId: string; thresholds: unknown[] }>(server, "/v1/quality/thresholds", {
      key: "alertsReadC",
    });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toEqual({ billingGroupId: c, thresholds: [] });
    expect((await api(server, `/v1/quality${query({ account: c })}`, { key: "readA" })).status).toBe(404);
    expect((await api(server, `/v1/quality/thresholds${query({ account: c })}`, { key: "alertsZones" })).status).toBe(
      404,
    );
    for (const window of ["0m", "25h", "15", "1.5h"]) {
      const res = await api<Problem>(server, `/v1/quality${query({ window })}`, { key: "readA" });
      expect(res.status, window).toBe(400);
      expect(params(res.body)).toEqual(["window"]);
    }
    const groupBy = await api<Problem>(server, `/v1/quality${query({ groupBy: "supplier" })}`, { key: "readA" });
    expect(params(groupBy.body)).toEqual(["groupBy"]);
    const bad = await send<Problem>(server, "alertsC", "PUT", "/v1/quality/thresholds", {
      thresholds: [{ prefix: "44x", asrMin: 101, windowMinutes: 0 }],
    });
    expect(bad.status).toBe(422);
    expect(params(bad.body)).toEqual(["thresholds.0.asrMin", "thresholds.0.prefix", "thresholds.0.windowMinutes"]);
    const twice = await send<Problem>(server, "alertsC", "PUT", "/v1/quality/thresholds", {
      thresholds: [{ prefix: "44" }, { prefix: "+44" }],
    });
    expect(params(twice.body)).toEqual(["thresholds"]);
    const noAccount = await send<Problem>(server, "platformAlerts", "PUT", "/v1/quality/thresholds", {
      thresholds: [],
    });
    expect(params(noAccount.body)).toEqual(["billingGroupId"]);
  });
});
