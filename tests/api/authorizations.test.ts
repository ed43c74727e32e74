import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, apiServers, type KeyName } from "./helpers";

/** POST /v1/authorizations over HTTP on both engines (README "Prepaid authorizations"). Only group `scratch` is charged. */
describe.each(apiServers())("POST /v1/authorizations on $engine", (server) => {
  const authorize = (body: unknown, key: KeyName = "ingestScratch") =>
    api<Record<string, unknown>>(server, "/v1/authorizations", { key, body });

  it("grants a reservation (201), answers a replay with the same body (200, Idempotent-Replayed), and its CDR settles it", async () => {
    const uuid = randomUUID();
    const first = await authorize({ uuid, destination: "+442071234567", from: "15550100", maxDurationSeconds: 600 });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get("content-type")).toContain("application/json");
    // 4420 on scratch: 0.012/min 60/60; 600 s requested -> 600 granted, reserving 11 minutes (601 s bills 660 s).
    expect(first.body).toMatchObject({
      uuid,
      billingGroupId: server.groups.scratch.id,
      destination: "+442071234567",
      from: "15550100",
      status: "active",
      maxDurationSeconds: 600,
      reserved: 0.132,
      currency: "USD",
      matchedPrefix: "4420",
      sellRate: 0.012,
      billingIncrement: "60/60",
      settledAt: null,
      callId: null,
    });
    const replay = await authorize({ uuid, destination: "+442071234567", from: "15550100", maxDurationSeconds: 600 });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);

    const start = Date.now() - 90_000;
    const cdr = await api<{ id: string }>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: {
        uuid,
        direction: "outbound",
        from: "15550100",
        to: "442071234567",
        startTime: new Date(start).toISOString(),
        answerTime: new Date(start).toISOString(),
        endTime: new Date(start + 61_000).toISOString(),
      },
    });
    expect(cdr.status, cdr.text).toBe(201);
    const settled = await authorize({ uuid, destination: "+442071234567" });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: "settled", callId: String(cdr.body.id) });
  });

  it("answers problem+json: 403 without cdrs:write, 422 for a bad body, 404 for an unknown destination or another group, 409 for another destination", async () => {
    const uuid = randomUUID();
    expect((await authorize({ uuid, destination: "44" }, "readA")).body).toMatchObject({
      status: 403,
      code: "insufficient_scope",
    });
    const bad = await authorize({ uuid, destination: "44-20", maxDurationSeconds: -1, extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    expect(bad.body).toMatchObject({
      code: "invalid_request_body",
      title: "Unprocessable request body",
    });
    expect((bad.body.errors as { param: string }[]).map((e) => e.param).sort()).toEqual(
      expect.arrayContaining(["destination", "maxDurationSeconds"]),
    );
    expect((await authorize({ destination: "44" })).status).toBe(422);
    expect((await api(server, "/v1/authorizations", { key: "ingestScratch", body: "not json" })).body).toMatchObject({
      status: 422,
      code: "invalid_request_body",
    });
    expect((await authorize({ uuid, destination: "999" })).body).toMatchObject({ status: 404, code: "no_rate" });
    expect((await authorize({ uuid, destination: "44", billingGroupId: server.groups.a.id })).body).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect((await authorize({ uuid, destination: "4479" })).status).toBe(201);
    expect((await authorize({ uuid, destination: "4478" })).body).toMatchObject({ status: 409, code: "conflict" });
    // `+` is ignored for matching, and so for the replay: the same authorization, not a 409.
    const replay = await authorize({ uuid, destination: "+4479" });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toMatchObject({ uuid, destination: "4479" });
  });

  it("platform keys name the group: 400 billing_group_required without one, 404 for an unknown one", async () => {
    expect((await authorize({ uuid: randomUUID(), destination: "44" }, "ingestPlatform")).body).toMatchObject({
      status: 400,
      code: "billing_group_required",
    });
    expect(
      (await authorize({ uuid: randomUUID(), destination: "44", billingGroupId: "bg_unknown" }, "ingestPlatform")).body,
    ).toMatchObject({ status: 404, code: "not_found" });
    const ok = await authorize(
      { uuid: randomUUID(), destination: "44", billingGroupId: server.groups.scratch.id, maxDurationSeconds: 30 },
      "ingestPlatform",
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ billingGroupId: server.groups.scratch.id, maxDurationSeconds: 30 });
  });
});
