import http from "node:http";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/operations";
import { api, apiServers, scratchCdr, type ApiServer } from "./helpers";

// TRACE and unimplemented methods answer 405 problem+json with Allow (docs/contract.md §3; README "Architecture",
// Methods), HSTS on answers served over https, and nextPageUrl's origin (docs/contract.md §4; ALLOWED_HOSTS).

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * node:http, because fetch can neither send TRACE nor choose the Host header, and it decompresses a gzip answer
 * unseen. A gzip body is inflated here, so `text` is the answer either way.
 */
function raw(
  server: ApiServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const text = (res.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(bytes) : bytes).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
      });
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.end(body);
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
  it("gzips a JSON answer of 1 KiB or more for a client that accepts it, never a smaller one (no-transform)", async () => {
    const gzip = { "accept-encoding": "gzip, deflate" };
    const bearer = (key: keyof ApiServer["keys"]) => ({ ...gzip, authorization: `Bearer ${server.keys[key]}` });
    const small = [
      ["balance", await raw(server, "GET", "/v1/balances", bearer("readA"))],
      ["problem", await raw(server, "GET", "/v1/balances", gzip)],
      [
        "stored CDR",
        await raw(
          server,
          "POST",
          "/v1/cdrs",
          { ...bearer("ingestScratch"), "content-type": "application/json" },
          JSON.stringify(scratchCdr(server)),
        ),
      ],
    ] as const;
    for (const [what, res] of small) {
      expect(Buffer.byteLength(res.text), what).toBeLessThan(1024);
      expect(res.headers["content-encoding"], what).toBeUndefined();
      expect(res.headers["cache-control"], what).toBe("no-store, no-transform");
      expect(() => JSON.parse(res.text), what).not.toThrow();
    }
    expect(small.map(([, r]) => r.status)).toEqual([200, 401, 201]);

    const page = await raw(server, "GET", "/v1/calls?pageSize=50", bearer("readA"));
    expect(page.status).toBe(200);
    expect(Buffer.byteLength(page.text)).toBeGreaterThanOrEqual(1024);
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(page.headers["cache-control"]).toBe("no-store");
    expect((JSON.parse(page.text) as { calls: unknown[] }).calls.length).toBeGreaterThan(1);
    // Without Accept-Encoding the same page is sent as is.
    const plain = await raw(server, "GET", "/v1/calls?pageSize=50", { authorization: `Bearer ${server.keys.readA}` });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.text).toBe(page.text);
  });

  it("answers a method a /v1 route does not implement with 405 problem+json and Allow, for every documented path", async () => {
    const doc = (await api<{ paths: Record<string, Record<string, unknown>> }>(server, "/v1/openapi.json")).body;
    let checked = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      const path = template.replace(/\{[^}]+\}/g, "x1");
      const documented = Object.keys(operations).map((m) => m.toUpperCase());
      const allow = [...new Set([...documented, ...(documented.includes("GET") ? ["HEAD"] : []), "OPTIONS"])].sort();
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "TRACE"]) {
        if (documented.includes(method)) continue;
        expectMethodNotAllowed(
          await raw(server, method, path, { authorization: `Bearer ${server.keys.platformCost}` }),
          allow,
          `${method} ${path}`,
        );
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
    expect((await raw(server, "GET", "/v1/accounts", { authorization: `Bearer ${server.keys.readA}` })).status).toBe(
      200,
    );
    expect((await raw(server, "HEAD", "/v1/accounts", { authorization: `Bearer ${server.keys.readA}` })).status).toBe(
      200,
    );
    const options = await raw(server, "OPTIONS", "/v1/cdrs");
    expect(options.status).toBe(204);
    expect(options.headers.allow).toContain("POST");
  });

  it("sends Strict-Transport-Security only over https: never because a client says X-Forwarded-Proto: https", async () => {
    // Over https through a trusted proxy, or with an https PUBLIC_BASE_URL: forwarded-headers.test.ts.
    const https = { "x-forwarded-proto": "https" };
    for (const path of ["/v1/accounts", "/sign-in", "/v1/openapi.json"]) {
      const claimed = await api(server, path, { key: "readA", headers: https });
      expect(claimed.headers.get("strict-transport-security"), path).toBeNull();
      const plain = await api(server, path, { key: "readA" });
      expect(plain.headers.get("strict-transport-security"), path).toBeNull();
    }
    const refused = await raw(server, "PUT", "/v1/calls", https);
    expect(refused.status).toBe(405);
    expect(refused.headers["strict-transport-security"]).toBeUndefined();
  });

  it("answers 404 problem+json to a path segment that is not valid percent-encoding, on every operation with one", async () => {
    // Next answers such a path with a 500 of its own before any handler runs; proxy.ts's matcher must list each
    // /v1 path with an {id} segment (docs/contract.md §3).
    const withParams = OPERATIONS.filter((op) => op.path.includes("{"));
    expect(withParams.length).toBeGreaterThan(0);
    for (const op of withParams) {
      const path = op.path.replace(/\{\w+\}/g, "%ED%A0%80");
      const res = await raw(server, op.method, path, { authorization: `Bearer ${server.keys.platformRead}` });
      expect(res.status, `${op.method} ${path}: ${res.text.slice(0, 200)}`).toBe(404);
      expect(res.headers["content-type"], path).toMatch(/^application\/problem\+json/);
    }
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
