import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createSessionToken, SESSION_TTL_SECONDS } from "@/lib/auth/session-token";
import { AppServer, Store, bearer, http, problemDefect, type HttpResult } from "./harness";
import { makeCdr, seedFixture, type Fixture } from "./seed";

/**
 * Portal sessions, authorization where data is read, and the limits of CONTRACT section 6, on
 * one PGlite server with a tight rate limit (2 requests/s, burst 5) and a known session secret
 * (so the test can mint expired tokens the server would have signed).
 */

const SESSION_SECRET = "reliability-sessions-secret-abcdefghijklmnop";
const RATE = 2;
const BURST = 5;
const PORTAL_PAGES = ["/", "/calls", "/rates"];
const SUBREQUEST_VALUES = [
  "middleware",
  "middleware:middleware:middleware:middleware:middleware",
  "proxy:proxy:proxy:proxy:proxy",
  "src/middleware:src/middleware:src/middleware:src/middleware:src/middleware",
  "src/proxy:src/proxy:src/proxy:src/proxy:src/proxy",
];

let store: Store;
let server: AppServer;
let fixture: Fixture;
/** Extra keys, one per test, so each has a full rate-limit bucket. */
const extraKeys: { id: string; key: string }[] = [];

beforeAll(async () => {
  store = await Store.create("pglite", "sessions");
  await store.withDb(async (db) => {
    fixture = await seedFixture(db, 10);
    for (let i = 0; i < 8; i++) extraKeys.push(await createApiKey(db, { scopes: ["calls:read", "cdrs:write"], billingGroupId: fixture.alphaId, name: `extra ${i}` }));
  });
  server = await AppServer.start(store, { env: { RATE_LIMIT_RPS: String(RATE), RATE_LIMIT_BURST: String(BURST), SESSION_SECRET } });
});

afterAll(async () => {
  await server?.stop();
  await store?.dispose();
});

function signIn(key: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key, next: "/calls" }).toString(),
  });
}

/** Set-Cookie attributes, lower-cased names. */
function parseSetCookie(header: string): { name: string; value: string; attrs: Map<string, string> } {
  const [pair, ...rest] = header.split(";").map((s) => s.trim());
  const eq = pair.indexOf("=");
  const attrs = new Map<string, string>();
  for (const a of rest) {
    const i = a.indexOf("=");
    attrs.set((i < 0 ? a : a.slice(0, i)).toLowerCase(), i < 0 ? "" : a.slice(i + 1));
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attrs };
}

function mintToken(keyId: string, nowSeconds?: number): string {
  process.env.SESSION_SECRET = SESSION_SECRET;
  return createSessionToken(keyId, nowSeconds);
}

/** Revokes a key through the running server's local admin channel (PGlite admits one process). */
async function revokeViaAdminChannel(keyId: string): Promise<void> {
  const lock = JSON.parse(fs.readFileSync(path.join(store.dataDir, "pglite.lock"), "utf8")) as { port: number; adminToken: string };
  const res = await http(`http://127.0.0.1:${lock.port}`, "/internal/admin", {
    method: "POST",
    headers: { "content-type": "application/json", "x-admin-token": lock.adminToken },
    body: JSON.stringify({ argv: ["keys", "revoke", "--id", keyId] }),
  });
  expect(res.status).toBe(200);
  expect(res.text).toContain('"result"');
}

function expectUnauthorized(res: HttpResult): void {
  expect(res.status, res.text).toBe(401);
  expect(problemDefect(res)).toBeNull();
  expect((res.json as { code: string }).code).toBe("unauthorized");
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
}

function expectSignInRedirect(res: HttpResult): void {
  expect([302, 303, 307, 308], `${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
  expect(res.headers.get("location")).toMatch(/^(https?:\/\/[^/]+)?\/sign-in/);
  expect(res.text).not.toContain("Alpha");
}

describe("portal session cookie", () => {
  it("is HttpOnly, SameSite, Path=/, expires with the token, holds no key, and is __Host- + Secure over https", async () => {
    const key = extraKeys[0].key;
    const plain = await signIn(key);
    expect(plain.status).toBe(303);
    const cookie = parseSetCookie(plain.headers.get("set-cookie") ?? "");
    expect(cookie.name).toBe("cb_session");
    expect(cookie.attrs.has("httponly")).toBe(true);
    expect(cookie.attrs.get("samesite")?.toLowerCase()).toMatch(/^(lax|strict)$/);
    expect(cookie.attrs.get("path")).toBe("/");
    expect(Number(cookie.attrs.get("max-age"))).toBe(SESSION_TTL_SECONDS);
    expect(cookie.attrs.has("domain")).toBe(false);
    expect(cookie.attrs.has("secure")).toBe(false); // plain http (development): a Secure cookie would be dropped
    expect(cookie.value).not.toContain(key);
    expect(cookie.value).not.toContain(key.slice(3, 20));

    const secure = await signIn(key, { "x-forwarded-proto": "https" });
    const hostCookie = parseSetCookie(secure.headers.get("set-cookie") ?? "");
    expect(hostCookie.name).toBe("__Host-cb_session");
    expect(hostCookie.attrs.has("secure")).toBe(true);
    expect(hostCookie.attrs.get("path")).toBe("/");
    expect(hostCookie.attrs.has("domain")).toBe(false);
    expect(hostCookie.attrs.has("httponly")).toBe(true);

    // The session reads data like the key would.
    const balance = await http(server.baseUrl, "/v1/balances", { headers: { cookie: `cb_session=${cookie.value}` } });
    expect(balance.status).toBe(200);
  });

  it("is not issued for a wrong key or a cross-site sign-in post", async () => {
    const wrong = await signIn(`${extraKeys[1].key.slice(0, -1)}x`);
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const crossSite = await signIn(extraKeys[1].key, { origin: "https://evil.example" });
    expect(crossSite.headers.get("set-cookie")).toBeNull();
  });

  it("refuses forged, tampered, expired and malformed cookies: 401 on /v1, sign-in redirect on pages", async () => {
    const keyId = fixture.keyIds.costAlpha;
    const valid = mintToken(keyId);
    const [payload, signature] = valid.split(".");
    const otherPayload = Buffer.from(JSON.stringify({ k: fixture.keyIds.platformCost, exp: 4_000_000_000 })).toString("base64url");
    const expired = mintToken(keyId, Math.floor(Date.now() / 1000) - SESSION_TTL_SECONDS - 5);
    const longLived = Buffer.from(JSON.stringify({ k: keyId, exp: 4_000_000_000 })).toString("base64url");
    const forged = [
      `${otherPayload}.${signature}`, // another key's id under this token's signature
      `${longLived}.${signature}`, // a later expiry under the old signature
      `${payload}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      `${payload}.`,
      payload,
      expired,
      `${payload}.${signature}%ZZ`, // malformed percent-escape (was a 500)
      "%E0%A4%A",
      mintToken("key_does_not_exist"),
    ];
    // Sanity: the untampered token works, so the refusals below are about the tampering.
    expect((await http(server.baseUrl, "/v1/accounts", { headers: { cookie: `cb_session=${valid}` } })).status).toBe(200);
    for (const token of forged) {
      for (const name of ["cb_session", "__Host-cb_session"]) {
        expectUnauthorized(await http(server.baseUrl, "/v1/calls", { headers: { cookie: `${name}=${token}` } }));
      }
      for (const page of PORTAL_PAGES) expectSignInRedirect(await http(server.baseUrl, page, { headers: { cookie: `cb_session=${token}` } }));
    }
  });

  it("ends at the next request once its key is revoked", async () => {
    const { id, key } = extraKeys[2];
    const signedIn = await signIn(key);
    const token = parseSetCookie(signedIn.headers.get("set-cookie") ?? "").value;
    const cookie = { cookie: `cb_session=${token}` };
    expect((await http(server.baseUrl, "/v1/balances", { headers: cookie })).status).toBe(200);
    expect((await http(server.baseUrl, "/calls", { headers: cookie })).status).toBe(200);
    await revokeViaAdminChannel(id);
    expectUnauthorized(await http(server.baseUrl, "/v1/balances", { headers: cookie }));
    expectSignInRedirect(await http(server.baseUrl, "/calls", { headers: cookie }));
    expectUnauthorized(await http(server.baseUrl, "/v1/balances", { headers: bearer(key) }));
  });
});

describe("authorization is checked where data is read", () => {
  it("refuses requests carrying x-middleware-subrequest without credentials", async () => {
    for (const value of SUBREQUEST_VALUES) {
      const headers = { "x-middleware-subrequest": value };
      for (const p of ["/v1/calls", "/v1/balances", "/v1/accounts", "/v1/calls/export", `/v1/calls/${fixture.alphaCallIds[0]}`, "/v1/rates?destination=44"]) {
        expectUnauthorized(await http(server.baseUrl, p, { headers }));
      }
      const post = await http(server.baseUrl, "/v1/cdrs", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(makeCdr("mw", 1, fixture.alphaId, null)) });
      expectUnauthorized(post);
      for (const page of PORTAL_PAGES) expectSignInRedirect(await http(server.baseUrl, page, { headers }));
      // ...and with a forged session cookie.
      expectUnauthorized(await http(server.baseUrl, "/v1/calls", { headers: { ...headers, cookie: "cb_session=eyJrIjoia2V5X3gifQ.AAAA" } }));
    }
  });

  it("keeps security headers on API answers and a nonce CSP on pages", async () => {
    const api = await http(server.baseUrl, "/v1/calls");
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    expect(api.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(api.headers.get("referrer-policy")).toBeTruthy();
    const page = await http(server.baseUrl, "/sign-in");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src [^;]*'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("limits", () => {
  it(`answers 429 with Retry-After and RateLimit-* once a key's bucket (${BURST}) is spent, per key`, async () => {
    const { key } = extraKeys[3];
    const answers: HttpResult[] = [];
    for (let i = 0; i < BURST + 3; i++) answers.push(await http(server.baseUrl, "/v1/accounts", { headers: bearer(key) }));
    const first = answers[0];
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-limit")).toBe(String(BURST));
    expect(Number(first.headers.get("ratelimit-remaining"))).toBeLessThan(BURST);
    expect(Number(first.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(0);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const res of limited) {
      expect(problemDefect(res)).toBeNull();
      expect((res.json as { code: string }).code).toBe("rate_limited");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("ratelimit-limit")).toBe(String(BURST));
      expect(res.headers.get("ratelimit-remaining")).toBe("0");
      expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    }
    // Another key is not affected...
    expect((await http(server.baseUrl, "/v1/accounts", { headers: bearer(extraKeys[4].key) })).status).toBe(200);
    // ...and this one is served again once it waited as told.
    const wait = Number(limited[limited.length - 1].headers.get("retry-after"));
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    expect((await http(server.baseUrl, "/v1/accounts", { headers: bearer(key) })).status).toBe(200);
  });

  it("answers 413 problem+json to a body over 5 MiB, declared or streamed, and stores nothing", async () => {
    const { key } = extraKeys[5];
    const cdr = makeCdr("huge", 1, fixture.alphaId, null);
    const padding = "x".repeat(5 * 1024 * 1024);
    const big = JSON.stringify({ ...cdr, hangupCause: "NORMAL_CLEARING", recordingUrl: null, pad: padding });
    const declared = await http(server.baseUrl, "/v1/cdrs", { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: big });
    expect(declared.status).toBe(413);
    expect(problemDefect(declared)).toBeNull();

    const encoder = new TextEncoder();
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= big.length) return controller.close();
        controller.enqueue(encoder.encode(big.slice(sent, sent + 512 * 1024)));
        sent += 512 * 1024;
      },
    });
    const res = await fetch(`${server.baseUrl}/v1/cdrs`, {
      method: "POST",
      headers: { ...bearer(extraKeys[6].key), "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const text = await res.text();
    expect(res.status, text).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);

    const stored = await http(server.baseUrl, `/v1/calls?to=${encodeURIComponent(cdr.to)}&pageSize=1000`, { headers: bearer(extraKeys[7].key) });
    expect(stored.status).toBe(200);
    expect((stored.json as { calls: { uuid: string }[] }).calls.some((c) => c.uuid === cdr.uuid)).toBe(false);
  });
});
