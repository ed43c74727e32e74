import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { http, type HttpResult } from "@/lib/testing/http-client";
import { PROXY_ADDRESS, PUBLIC_BASE_URL } from "./global-setup";
import { apiServers } from "./helpers";

// Which forwarded headers count (docs/contract.md §6): X-Forwarded-Host/-Proto only from TRUSTED_PROXIES, and
// PUBLIC_BASE_URL, when set, is the origin. The attack: a cookie-authenticated POST from another site's page that
// claims, in X-Forwarded-Host, to have been sent to that site, so that its Origin looks like this site's own.

const PUBLIC_HOST = new URL(PUBLIC_BASE_URL).host;
const EVIL = { origin: "http://evil.example", "x-forwarded-host": "evil.example" };

interface Target {
  baseUrl: string;
  key: string;
}

function signIn(target: Target, key: string, headers: Record<string, string>, localAddress?: string) {
  return http(target.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key, next: "/calls" }).toString(),
    localAddress,
  });
}

/** The session cookie a sign-in set, as a Cookie header ("" when none was set). */
function cookieOf(res: HttpResult): string {
  return (res.headers.get("set-cookie") ?? "").split(";")[0];
}

function authorize(target: Target, headers: Record<string, string>, localAddress?: string) {
  return http(target.baseUrl, "/v1/authorizations", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ uuid: `fwd-${randomUUID()}`, destination: "442071234567", maxDurationSeconds: 60 }),
    localAddress,
  });
}

function expectCrossOrigin(res: HttpResult): void {
  expect(res.status, res.text).toBe(403);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect((res.json as { code: string }).code).toBe("cross_origin");
}

function expectOriginRefused(res: HttpResult): void {
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toMatch(/^\/sign-in\?error=origin/);
  expect(res.headers.get("set-cookie")).toBeNull();
}

describe.each(apiServers())("forwarded headers without TRUSTED_PROXIES or PUBLIC_BASE_URL on $engine", (server) => {
  const target = { baseUrl: server.baseUrl, key: server.keys.ingestScratch };

  it("a forged X-Forwarded-Host does not make another site's page same-origin: 403 cross_origin, sign-in refused", async () => {
    const cookie = cookieOf(await signIn(target, target.key, {}));
    expect(cookie).toMatch(/^cb_session=./);
    expectCrossOrigin(await authorize(target, { cookie, ...EVIL }));
    expectCrossOrigin(await authorize(target, { cookie, ...EVIL, forwarded: "host=evil.example;proto=http" }));
    expectOriginRefused(await signIn(target, target.key, EVIL));
  });

  it("a client's X-Forwarded-Proto: https is not https: no HSTS, no __Host- cookie", async () => {
    const https = { "x-forwarded-proto": "https" };
    const signedIn = await signIn(target, target.key, https);
    expect(cookieOf(signedIn)).toMatch(/^cb_session=/);
    expect(signedIn.headers.get("set-cookie")).not.toContain("Secure");
    for (const path of ["/v1/openapi.json", "/sign-in"])
      expect(
        (await http(server.baseUrl, path, { headers: https })).headers.get("strict-transport-security"),
      ).toBeNull();
  });
});

describe("forwarded headers from a trusted proxy (TRUSTED_PROXIES)", () => {
  const { proxied } = inject("edgeServers");
  const fromProxy = {
    "x-forwarded-host": PUBLIC_HOST,
    "x-forwarded-proto": "https",
    "x-forwarded-for": "203.0.113.70",
  };

  it("are honoured from the proxy: its host makes the portal's own Origin same-origin, over https", async () => {
    const signedIn = await signIn(proxied, proxied.key, { ...fromProxy, origin: PUBLIC_BASE_URL }, PROXY_ADDRESS);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/calls");
    expect(signedIn.headers.get("set-cookie")).toMatch(/^__Host-cb_session=.*; Secure/);
    expect(signedIn.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    const cookie = cookieOf(signedIn);
    const granted = await authorize(proxied, { ...fromProxy, cookie, origin: PUBLIC_BASE_URL }, PROXY_ADDRESS);
    expect(granted.status, granted.text).toBe(201);
    // HSTS on every kind of answer over https: a page, JSON, and the refusal given before Next (lib/api/method-guard.ts).
    for (const [method, path] of [
      ["GET", "/sign-in"],
      ["GET", "/v1/openapi.json"],
      ["PUT", "/v1/calls"],
    ]) {
      const res = await http(proxied.baseUrl, path, { method, headers: fromProxy, localAddress: PROXY_ADDRESS });
      expect(res.headers.get("strict-transport-security"), `${method} ${path}`).toMatch(/^max-age=\d{7,}/);
    }
    // The attack through the proxy: its X-Forwarded-Host is the portal's, the evil Origin is not.
    expectCrossOrigin(await authorize(proxied, { ...fromProxy, cookie, origin: "http://evil.example" }, PROXY_ADDRESS));
  });

  it("count for nothing from any other address, whatever they claim", async () => {
    const cookie = cookieOf(await signIn(proxied, proxied.key, {}));
    expect(cookie).toMatch(/^cb_session=./);
    expectCrossOrigin(await authorize(proxied, { cookie, ...EVIL }));
    expectOriginRefused(await signIn(proxied, proxied.key, EVIL));
    // The proxy's headers sent directly: not https (no HSTS, the plain cookie), and the portal's Origin is foreign.
    const direct = await signIn(proxied, proxied.key, { ...fromProxy, origin: PUBLIC_BASE_URL });
    expectOriginRefused(direct);
    expect(direct.headers.get("strict-transport-security")).toBeNull();
    const plain = await signIn(proxied, proxied.key, fromProxy);
    expect(cookieOf(plain)).toMatch(/^cb_session=./);
  });
});

describe("PUBLIC_BASE_URL", () => {
  const { public: site } = inject("edgeServers");

  it("is the origin: its Origin is accepted with no forwarded header, any other refused, HSTS and __Host- always", async () => {
    const signedIn = await signIn(site, site.key, { origin: PUBLIC_BASE_URL });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("set-cookie")).toMatch(/^__Host-cb_session=.*; Secure/);
    expect(signedIn.headers.get("strict-transport-security")).toMatch(/^max-age=\d{7,}/);
    const cookie = cookieOf(signedIn);
    const granted = await authorize(site, { cookie, origin: PUBLIC_BASE_URL });
    expect(granted.status, granted.text).toBe(201);
    // The server's own address is not the site's origin, and forwarded headers change nothing.
    for (const headers of [
      { origin: site.baseUrl },
      EVIL,
      { origin: "http://billing.example.test" },
      { ...EVIL, "x-forwarded-proto": "http" },
    ]) {
      expectCrossOrigin(await authorize(site, { cookie, ...headers }));
      expectOriginRefused(await signIn(site, site.key, headers));
    }
  });
});
