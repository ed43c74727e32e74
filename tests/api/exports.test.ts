import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Export } from "@/lib/exports/schemas";
import { waitUntil } from "@/lib/testing/wait-until";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// POST /v1/exports and GET /v1/exports/{id}[/download]: background CSV exports (README "Background exports"), and
// through them the Idempotency-Key rule every creating POST follows (README "Idempotent requests").

async function start(server: ApiServer, key: KeyName, body: unknown, idempotencyKey: string = randomUUID()) {
  return api<Export>(server, "/v1/exports", { key, body, headers: { "Idempotency-Key": idempotencyKey } });
}

async function finished(server: ApiServer, key: KeyName, id: string): Promise<Export> {
  let last: Export | undefined;
  await waitUntil(
    async () => {
      const res = await api<Export>(server, `/v1/exports/${id}`, { key });
      expect(res.status).toBe(200);
      last = res.body;
      return last.status === "succeeded" || last.status === "failed";
    },
    `export ${id} to finish`,
    60_000,
  );
  return last!;
}

/** The link the server would sign, from its own secret (kept in its DATA_DIR), for a chosen expiry. */
function linkExpiringAt(server: ApiServer, id: string, expires: number): string {
  const secret = fs.readFileSync(path.join(path.dirname(server.logFile), "data", "cursor-secret"), "utf8").trim();
  const signature = createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`export-download\n${id}\n${expires}`)
    .digest()
    .subarray(0, 16)
    .toString("base64url");
  return `/v1/exports/${id}/download${query({ expires, signature })}`;
}

describe.each(apiServers())("background exports on $engine", (server) => {
  const window = { "startTime[gte]": server.windowStart, "startTime[lte]": server.windowEnd };

  it("writes the file GET /v1/calls/export answers, with progress, and a link that works for its key only", async () => {
    for (const key of ["readA", "costA"] as const) {
      const started = await start(server, key, { filters: { ...window, direction: "outbound" } });
      expect(started.status).toBe(202);
      expect(started.headers.get("location")).toBe(`/v1/exports/${started.body.id}`);
      expect(started.body).toMatchObject({ status: "queued", rowsDone: 0, download: null });
      const done = await finished(server, key, started.body.id);
      expect(done.status).toBe("succeeded");
      expect(done.rowsEstimated).toBe(done.rowsDone);
      expect(done.download!.url.startsWith(`${server.baseUrl}/v1/exports/${done.id}/download?`)).toBe(true);
      expect(Date.parse(done.download!.expiresAt) - Date.now()).toBeGreaterThan(50 * 60_000);
      const file = await api(server, done.download!.url, { key });
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toMatch(/^text\/csv/);
      const sync = await api(server, `/v1/calls/export${query({ ...window, direction: "outbound" })}`, { key });
      expect(file.text).toBe(sync.text);
      expect(file.text.trimEnd().split("\r\n").length - 1).toBe(done.rowsDone);
      const header = file.text.split("\r\n")[0];
      if (key === "readA") expect(header).not.toMatch(/buyCost|margin|supplierId/);
      // costA is bound to a group: its own tier's buy cost and margin, never the operator's supplier (issue 32).
      else expect(header.endsWith(",buyCost,margin")).toBe(true);
      // Another key, even of the same group, sees neither the export nor its file.
      for (const other of ["readB", "platformRead", "costA", "readA"] as const) {
        if (other === key) continue;
        expect((await api(server, `/v1/exports/${done.id}`, { key: other })).status, other).toBe(404);
        expect((await api(server, done.download!.url, { key: other })).status, other).toBe(404);
      }
      expect((await api(server, done.download!.url)).status).toBe(401);
    }
  });

  it("a bound key's export holds its own group's calls only", async () => {
    const started = await start(server, "readB", { filters: { ...window, billingGroupId: server.groups.a.id } });
    const done = await finished(server, "readB", started.body.id);
    expect(done.rowsDone).toBe(0);
    const file = await api(server, done.download!.url, { key: "readB" });
    expect(file.text.trimEnd().split("\r\n")).toHaveLength(1);
  });

  it("replays the same request with the same Idempotency-Key and refuses the key with another body", async () => {
    const idempotencyKey = randomUUID();
    const first = await start(server, "readA", { filters: { ...window, to: "4420" } }, idempotencyKey);
    expect(first.status).toBe(202);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // The same JSON written otherwise (key order) is the same request.
    const again = await start(server, "readA", { filters: { to: "4420", ...window } }, idempotencyKey);
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("location")).toBe(`/v1/exports/${first.body.id}`);
    expect(again.body).toEqual(first.body);
    const other = await start(server, "readA", { filters: { ...window, to: "4421" } }, idempotencyKey);
    expect(other.status).toBe(409);
    expect(other.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(other.body).toMatchObject({ code: "idempotency_key_reused" });
    // Keys are per API key: another key's same idempotency key is its own request.
    const otherKey = await start(server, "costA", { filters: { ...window, to: "4420" } }, idempotencyKey);
    expect(otherKey.status).toBe(202);
    expect(otherKey.headers.get("idempotent-replayed")).toBeNull();
    expect(otherKey.body.id).not.toBe(first.body.id);
    // Without the header every POST is a new export.
    const plain = () => api<Export>(server, "/v1/exports", { key: "readA", body: { filters: window } });
    expect((await plain()).body.id).not.toBe((await plain()).body.id);
  });

  it("answers 410 link_expired for an expired link and 404 for an altered one", async () => {
    const started = await start(server, "readA", { filters: { ...window, direction: "inbound" } });
    const done = await finished(server, "readA", started.body.id);
    const expired = await api(server, linkExpiringAt(server, done.id, Math.floor(Date.now() / 1000) - 1), {
      key: "readA",
    });
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ code: "link_expired" });
    const valid = new URL(done.download!.url);
    valid.searchParams.set("expires", String(Number(valid.searchParams.get("expires")) + 60));
    expect((await api(server, valid.toString(), { key: "readA" })).status).toBe(404);
    expect(
      (await api(server, linkExpiringAt(server, done.id, Math.floor(Date.now() / 1000) + 60), { key: "readA" })).status,
    ).toBe(200);
  });

  it("refuses bad input with a 4xx naming the field", async () => {
    const bad = await start(server, "readA", { filters: { direction: "sideways", "startTime[gte]": "yesterday" } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: "invalid_request_body" });
    const params = (bad.body as unknown as { errors: { param: string }[] }).errors.map((e) => e.param).sort();
    expect(params).toEqual(["filters.direction", "filters.startTime[gte]"]);
    const unknown = await start(server, "readA", { filters: { pageSize: "5" }, format: "xlsx" });
    expect(unknown.status).toBe(422);
    const notJson = await api(server, "/v1/exports", {
      key: "readA",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(422);
    expect(notJson.body).toMatchObject({ code: "invalid_request_body", errors: [{ param: "(body)" }] });
    const badKey = await start(server, "readA", { filters: {} }, "has space");
    expect(badKey.status).toBe(400);
    expect(badKey.body).toMatchObject({ code: "invalid_parameter", errors: [{ param: "Idempotency-Key" }] });
    const supplier = await start(server, "readA", { filters: { supplierId: server.supplierId } });
    expect(supplier.status).toBe(403);
    expect((await start(server, "ingestA", { filters: {} })).status).toBe(403);
    expect((await api(server, "/v1/exports/exp_nothing", { key: "readA" })).status).toBe(404);
    expect((await api(server, "/v1/exports/exp_nothing/download", { key: "readA" })).status).toBe(400);
  });
});
