import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// Alerts over /v1 (docs/contract.md §18): thresholds and webhook endpoints, scopes, reach (404 for another group's
// or the platform's endpoint), Idempotency-Key, 422 naming the field, the SSRF guard. These servers do not allow
// private webhook targets (WEBHOOKS_ALLOW_PRIVATE unset): a loopback URL is refused. Endpoints here point at a public
// address and are never sent anything: test events go to disabled endpoints (they wait), and a platform endpoint
// subscribes to an event no other test causes and lives only within its test.

interface Problem {
  code: string;
  errors?: { param: string; message: string }[];
}
interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  billingGroupId: string | null;
  disabled: boolean;
  secretPrefix: string;
  secret?: string;
}
interface Delivery {
  eventId: string;
  type: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: unknown[];
}

const PUBLIC_URL = "https://93.184.215.14/hooks/callbook";
const params = (body: unknown) => ((body as Problem).errors ?? []).map((e) => e.param).sort();

function send<T>(server: ApiServer, key: KeyName, method: string, path: string, body?: unknown, idem?: string) {
  return api<T>(server, path, {
    key,
    method,
    body,
    headers: idem === undefined ? {} : { "Idempotency-Key": idem },
  });
}

describe.each(apiServers())("alerts on $engine", (server) => {
  const c = server.groups.c.id;
  const zones = server.groups.zones.id;
  const create = async (key: KeyName, extra: Record<string, unknown> = {}) => {
    const res = await send<Endpoint>(server, key, "POST", "/v1/webhook-endpoints", {
      url: PUBLIC_URL,
      eventTypes: ["balance.low"],
      ...extra,
    });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };

  it("creates an endpoint with its secret shown once, lists, changes, disables, tests, logs, resends and deletes it, each audited", async () => {
    const created = await create("alertsC", { description: "ops pager" });
    expect(created).toMatchObject({
      url: PUBLIC_URL,
      eventTypes: ["balance.low"],
      billingGroupId: c,
      disabled: false,
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.secretPrefix).toBe(created.secret!.slice(0, 12));
    const path = `/v1/webhook-endpoints/${created.id}`;
    const listed = await api<{ endpoints: Endpoint[] }>(server, "/v1/webhook-endpoints", { key: "alertsReadC" });
    expect(listed.status).toBe(200);
    const mine = listed.body.endpoints.find((e) => e.id === created.id);
    expect(mine).toMatchObject({ id: created.id, secretPrefix: created.secretPrefix });
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    expect((await api<Endpoint>(server, path, { key: "alertsReadC" })).body.id).toBe(created.id);

    const changed = await send<Endpoint>(server, "alertsC", "PATCH", path, {
      eventTypes: ["balance.low", "balance.recovered", "balance.low"],
      disabled: true,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ eventTypes: ["balance.low", "balance.recovered"], disabled: true });

    // A test event of a disabled endpoint waits in the outbox (nothing is sent).
    const test = await send<Delivery>(server, "alertsC", "POST", `${path}/test`);
    expect(test.status, test.text).toBe(202);
    expect(test.body).toMatchObject({ type: "webhook.test", status: "pending", attempts: [] });
    const log = await api<{ deliveries: Delivery[]; nextPageUrl: string | null; meta: { hasMore: boolean } }>(
      server,
      `${path}/deliveries`,
      { key: "alertsReadC" },
    );
    expect(log.status).toBe(200);
    expect(log.body.deliveries.map((d) => d.eventId)).toEqual([test.body.eventId]);
    expect(log.body).toMatchObject({ nextPageUrl: null, meta: { hasMore: false } });
    const second = await send<Delivery>(server, "alertsC", "POST", `${path}/test`);
    const paged = await api<{ deliveries: Delivery[]; nextPageUrl: string }>(
      server,
      `${path}/deliveries${query({ pageSize: 1 })}`,
      { key: "alertsReadC" },
    );
    expect(paged.body.deliveries[0].eventId).toBe(second.body.eventId);
    const next = await api<{ deliveries: Delivery[] }>(server, paged.body.nextPageUrl, { key: "alertsReadC" });
    expect(next.body.deliveries.map((d) => d.eventId)).toEqual([test.body.eventId]);

    const resent = await send<Delivery>(server, "alertsC", "POST", `${path}/deliveries/${test.body.eventId}/resend`);
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body).toMatchObject({ eventId: test.body.eventId, status: "pending" });
    expect((await send(server, "alertsC", "POST", `${path}/deliveries/msg_nothing/resend`)).status).toBe(404);

    const deleted = await send(server, "alertsC", "DELETE", path);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, deleted: true });
    expect((await api(server, path, { key: "alertsC" })).status).toBe(404);

    const events = await api<{ events: { action: string; target: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ action: "webhook_endpoint.*" })}`,
      { key: "alertsC" },
    );
    expect(events.status, events.text).toBe(200);
    expect(
      events.body.events
        .filter((e) => e.target.id === created.id)
        .map((e) => e.action)
        .reverse(),
    ).toEqual([
      "webhook_endpoint.created",
      "webhook_endpoint.updated",
      "webhook_endpoint.test_sent",
      "webhook_endpoint.test_sent",
      "webhook_endpoint.deleted",
    ]);
    const resends = await api<{ events: { target: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ action: "webhook_delivery.resent" })}`,
      { key: "alertsC" },
    );
    // This test's resend, not any other group c has seen.
    expect(resends.body.events.filter((e) => e.target.id === created.id)).toHaveLength(1);
  });

  it("needs alerts:read to read and alerts:write to change", async () => {
    expect((await api(server, "/v1/webhook-endpoints", { key: "readA" })).status).toBe(403);
    expect((await api(server, "/v1/alert-thresholds", { key: "readA" })).status).toBe(403);
    const refused = await send<Problem>(server, "alertsReadC", "POST", "/v1/webhook-endpoints", {
      url: PUBLIC_URL,
      eventTypes: ["*"],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("insufficient_scope");
    expect((await send(server, "alertsReadC", "PUT", "/v1/alert-thresholds", { thresholds: [] })).status).toBe(403);
  });

  it("keeps a group's endpoints and thresholds from another group (404) and the platform's endpoints from groups", async () => {
    const theirs = await create("alertsC");
    const platform = await create("platformAlerts", { eventTypes: ["balance.recovered"] });
    try {
      expect(platform.billingGroupId).toBeNull();
      for (const id of [theirs.id, platform.id]) {
        const path = `/v1/webhook-endpoints/${id}`;
        expect((await api(server, path, { key: "alertsZones" })).status).toBe(404);
        expect((await send(server, "alertsZones", "PATCH", path, { disabled: true })).status).toBe(404);
        expect((await send(server, "alertsZones", "POST", `${path}/test`)).status).toBe(404);
        expect((await api(server, `${path}/deliveries`, { key: "alertsZones" })).status).toBe(404);
        expect((await send(server, "alertsZones", "DELETE", path)).status).toBe(404);
      }
      expect((await api(server, `/v1/webhook-endpoints/${platform.id}`, { key: "alertsC" })).status).toBe(404);
      const listed = await api<{ endpoints: Endpoint[] }>(server, "/v1/webhook-endpoints", { key: "alertsZones" });
      expect(listed.body.endpoints.every((e) => e.billingGroupId === zones)).toBe(true);
      const ofC = await api<{ endpoints: Endpoint[] }>(server, "/v1/webhook-endpoints", { key: "alertsC" });
      expect(ofC.body.endpoints.map((e) => e.id)).toContain(theirs.id);
      expect(ofC.body.endpoints.map((e) => e.id)).not.toContain(platform.id);
      // Naming another group reaches nothing; a platform key reaches every group's.
      const named = await send(server, "alertsZones", "POST", "/v1/webhook-endpoints", {
        url: PUBLIC_URL,
        eventTypes: ["*"],
        billingGroupId: c,
      });
      expect(named.status).toBe(404);
      expect((await api(server, `/v1/alert-thresholds${query({ account: c })}`, { key: "alertsZones" })).status).toBe(
        404,
      );
      const everyOne = await api<{ endpoints: Endpoint[] }>(server, `/v1/webhook-endpoints${query({ account: c })}`, {
        key: "platformAlerts",
      });
      expect(everyOne.body.endpoints.map((e) => e.id)).toContain(theirs.id);
      expect((await api(server, `/v1/webhook-endpoints/${theirs.id}`, { key: "platformAlerts" })).status).toBe(200);
    } finally {
      expect((await send(server, "platformAlerts", "DELETE", `/v1/webhook-endpoints/${platform.id}`)).status).toBe(200);
      expect((await send(server, "platformAlerts", "DELETE", `/v1/webhook-endpoints/${theirs.id}`)).status).toBe(200);
    }
  });

  it("replays a creation sent twice with one Idempotency-Key and refuses the key for another body", async () => {
    const idem = randomUUID();
    const body = { url: PUBLIC_URL, eventTypes: ["group.disabled"], description: `once ${idem}` };
    const first = await send<Endpoint>(server, "alertsC", "POST", "/v1/webhook-endpoints", body, idem);
    expect(first.status).toBe(201);
    const again = await send<Endpoint>(server, "alertsC", "POST", "/v1/webhook-endpoints", body, idem);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    const other = await send<Problem>(
      server,
      "alertsC",
      "POST",
      "/v1/webhook-endpoints",
      { ...body, eventTypes: ["*"] },
      idem,
    );
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_key_reused");
    const listed = await api<{ endpoints: (Endpoint & { description: string })[] }>(server, "/v1/webhook-endpoints", {
      key: "alertsC",
    });
    expect(listed.body.endpoints.filter((e) => e.description === body.description)).toHaveLength(1);
    await send(server, "alertsC", "DELETE", `/v1/webhook-endpoints/${first.body.id}`);
  });

  it("answers 422 naming the field: missing and unknown fields, unknown event types, private or non-http URLs", async () => {
    const post = (body: unknown) => send<Problem>(server, "alertsC", "POST", "/v1/webhook-endpoints", body);
    const empty = await post({});
    expect(empty.status).toBe(422);
    expect(params(empty.body)).toEqual(["eventTypes", "url"]);
    const bad = await post({ url: PUBLIC_URL, eventTypes: ["balance.lower"], colour: "red" });
    expect(bad.status).toBe(422);
    expect(params(bad.body)).toEqual(["colour", "eventTypes.0"]);
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://[::1]/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://10.1.2.3/",
      "ftp://93.184.215.14/",
      "https://user:pw@93.184.215.14/",
      "not a url",
    ]) {
      const refused = await post({ url, eventTypes: ["*"] });
      expect(refused.status, url).toBe(422);
      expect(refused.body.code).toBe("invalid_request_body");
      expect(params(refused.body), url).toEqual(["url"]);
    }
    // A change to a private URL is refused the same way.
    const endpoint = await create("alertsC");
    const patched = await send<Problem>(server, "alertsC", "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, {
      url: "http://localhost:3000/",
    });
    expect(patched.status).toBe(422);
    expect(params(patched.body)).toEqual(["url"]);
    const nothing = await send<Problem>(server, "alertsC", "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, {});
    expect(nothing.status).toBe(422);
    await send(server, "alertsC", "DELETE", `/v1/webhook-endpoints/${endpoint.id}`);

    const numbers = await send<Problem>(server, "alertsC", "PUT", "/v1/alert-thresholds", { thresholds: [10] });
    expect(numbers.status).toBe(422);
    expect(params(numbers.body)).toEqual(["thresholds.0"]);
    const platformNoGroup = await send<Problem>(server, "platformAlerts", "PUT", "/v1/alert-thresholds", {
      thresholds: ["1"],
    });
    expect(platformNoGroup.status).toBe(422);
    expect(params(platformNoGroup.body)).toEqual(["billingGroupId"]);
    const platformRead = await api<Problem>(server, "/v1/alert-thresholds", { key: "platformAlerts" });
    expect(platformRead.status).toBe(400);
    expect(params(platformRead.body)).toEqual(["account"]);
  });

  it("replaces a group's thresholds as a set, read back by the group and the platform, audited", async () => {
    const put = await send<{ thresholds: { amount: number; crossed: boolean }[]; currency: string }>(
      server,
      "alertsC",
      "PUT",
      "/v1/alert-thresholds",
      { thresholds: ["5", "25.50", "5"] },
    );
    expect(put.status, put.text).toBe(200);
    expect(put.body.currency).toBe("GBP");
    expect(put.body.thresholds.map((t) => t.amount)).toEqual([25.5, 5]);
    const read = await api<{ thresholds: { amount: number }[] }>(
      server,
      `/v1/alert-thresholds${query({ account: c })}`,
      { key: "platformAlerts" },
    );
    expect(read.body.thresholds.map((t) => t.amount)).toEqual([25.5, 5]);
    const cleared = await send<{ thresholds: unknown[] }>(server, "platformAlerts", "PUT", "/v1/alert-thresholds", {
      billingGroupId: c,
      thresholds: [],
    });
    expect(cleared.body.thresholds).toEqual([]);
    const events = await api<{ events: { action: string; actor: { id: string }; after: unknown }[] }>(
      server,
      `/v1/audit-events${query({ action: "alert_threshold.changed" })}`,
      { key: "alertsC" },
    );
    expect(events.body.events.slice(0, 2).map((e) => [e.actor.id, e.after])).toEqual([
      [server.keyIds.platformAlerts, { thresholds: [] }],
      [server.keyIds.alertsC, { thresholds: ["25.5", "5"] }],
    ]);
  });
});
