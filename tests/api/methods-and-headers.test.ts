import http from "node:http";
import { describe, expect, it } from "vitest";
import { api, apiServers, type ApiServer } from "./helpers";

// Issue 10 items 5 (TRACE), 9 (405, HSTS, nextPageUrl's origin).

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** node:http, because fetch can neither send TRACE nor choose the Host header. */
function raw(server: ApiServer, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers, timeout: 30_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end();
  });
}

function expectMethodNotAllowed(res: RawAnswer, allow: string[], where: string): void {
  expect(res.status, `${where}: ${res.text.slice(0, 200)}`).toBe(405);
  expect(res.headers["content-type"], where).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as { status: number; code: string; title: string; detail: string };
  expect(body, where).toMatchObject({ status: 405, code: "method_not_allowed" });
  expect(body.detail, where).toContain("Allowed:");
  expect((res.headers.allow ?? "").split(/,\s*/).sort(), where).toEqual(allow);
  expect(res.headers["x-request-id"], where).toBeTruthy();
}

describe.each(apiServers())("methods and headers on $engine", (server) => {
  it("answers a method a /v1 route does not implement with 405 problem+json and Allow, for every documented path", async () => {
    const doc = (await api<{ paths: Record<string, Record<string, unknown>> }>(server, "/v1/openapi.json")).body;
    let checked = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const path = template.replace(/\{[^}]+\}/g, "x1");
      const documented = Object.keys(operations).map((m) => m.toUpperCase());
      const allow = [...new Set([...documented, ...(documented.includes("GET") ? ["HEAD"] : []), "OPTIONS"])].sort();
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "TRACE"]) {
        if (documented.includes(method)) continue;
        expectMethodNotAllowed(await raw(server, method, path, { authorization: `Bearer ${server.keys.platformCost}` }), allow, `${method} ${path}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("answers TRACE on any path with 405, never Next's 500", async () => {
    for (const path of ["/v1/calls", "/v1/nothing", "/", "/sign-in", "/v1/calls?pageSize=1"]) {
      const res = await raw(server, "TRACE", path);
      expect(res.status, path).toBe(405);
      expect(res.headers["content-type"], path).toMatch(/^application\/problem\+json/);
    }
  });

  it("still serves implemented methods: GET, HEAD, OPTIONS with Allow", async () => {
    expect((await raw(server, "GET", "/v1/accounts", { authorization: `Bearer ${server.keys.readA}` })).status).toBe(200);
    expect((await raw(server, "HEAD", "/v1/accounts", { authorization: `Bearer ${server.keys.readA}` })).status).toBe(200);
    const options = await raw(server, "OPTIONS", "/v1/cdrs");
    expect(options.status).toBe(204);
    expect(options.headers.allow).toContain("POST");
  });

  it("sends Strict-Transport-Security only over https (X-Forwarded-Proto from the TLS proxy)", async () => {
    const https = { "x-forwarded-proto": "https" };
    for (const path of ["/v1/accounts", "/sign-in", "/v1/openapi.json"]) {
      const secure = await api(server, path, { key: "readA", headers: https });
      expect(secure.headers.get("strict-transport-security"), path).toMatch(/^max-age=\d{7,}/);
      const plain = await api(server, path, { key: "readA" });
      expect(plain.headers.get("strict-transport-security"), path).toBeNull();
    }
    const refused = await raw(server, "PUT", "/v1/calls", https);
    expect(refused.headers["strict-transport-security"]).toMatch(/^max-age=/);
  });

  it("never builds nextPageUrl from a Host the server does not answer for (PUBLIC_BASE_URL unset)", async () => {
    const { port } = new URL(server.baseUrl);
    const auth = { authorization: `Bearer ${server.keys.platformRead}` };
    for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1:1", `localhost.evil.example:${port}`]) {
      const res = await raw(server, "GET", "/v1/calls?pageSize=1", { ...auth, host });
      expect(res.status, host).toBe(200);
      const next = new URL((JSON.parse(res.text) as { nextPageUrl: string }).nextPageUrl);
      expect(next.host, host).not.toContain("evil");
      expect(["127.0.0.1", "localhost"], host).toContain(next.hostname);
      expect(next.port, host).toBe(port);
    }
    // The loopback names on the server's own port are the server itself: kept as the client wrote them.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await raw(server, "GET", "/v1/calls?pageSize=1", { ...auth, host });
      expect(new URL((JSON.parse(res.text) as { nextPageUrl: string }).nextPageUrl).host, host).toBe(host);
    }
  });
});
