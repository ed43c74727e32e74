import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/auth/manage-keys";
import { createPortalSession } from "@/lib/auth/portal-sessions";
import { createSessionToken, SESSION_TTL_SECONDS } from "@/lib/auth/session-token";
import { AppServer, Store, bearer, http, problemDefect, type HttpResult } from "./harness";
import { makeCdr, seedFixture, type Fixture } from "./seed";

/**
 * Portal sessions, authorization where data is read, and the limits of docs/contract.md §6, on
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
/** A platform key that may only send CDRs: it may not sign in (only keys holding calls:read may). */
let ingestOnly: { id: string; key: string };
/** Sessions opened before the server started (the store admits one process on PGlite). */
const sessions: Record<"costAlpha" | "platformCost" | "expired", string> = {
  costAlpha: "",
  platformCost: "",
  expired: "",
};

beforeAll(async () => {
  store = await Store.create("pglite", "sessions");
  await store.withDb(async (db) => {
    fixture = await seedFixture(db, 10);
    for (let i = 0; i < 14; i++)
      extraKeys.push(
        await createApiKey(db, {
          scopes: ["calls:read", "cdrs:write"],
          billingGroupId: fixture.alphaId,
          name: `extra ${i}`,
        }),
      );
    ingestOnly = await createApiKey(db, { scopes: ["cdrs:write"], name: "switch" });
    process.env.SESSION_SECRET = SESSION_SECRET;
    sessions.costAlpha = (await createPortalSession(db, fixture.keyIds.costAlpha)).token;
    sessions.platformCost = (await createPortalSession(db, fixture.keyIds.platformCost)).token;
    sessions.expired = (
      await createPortalSession(db, fixture.keyIds.costAlpha, new Date(Date.now() - (SESSION_TTL_SECONDS + 5) * 1000))
    ).token;
  });
  server = await AppServer.start(store, {
    env: {
      RATE_LIMIT_RPS: String(RATE),
      RATE_LIMIT_BURST: String(BURST),
      SESSION_SECRET,
      // The tests play the TLS-terminating proxy (X-Forwarded-Proto: https) from 127.0.0.1, and refuse many forged
      // cookies from it: the limit of refused credentials per address has its own tests (tests/api/auth-failures).
      TRUSTED_PROXIES: "127.0.0.1",
      AUTH_FAILURES_PER_MINUTE: "0",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await store?.dispose();
});

function signIn(key: string, headers: Record<string, string> = {}, next = "/calls"): Promise<HttpResult> {
  return http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key, next }).toString(),
  });
}

/** Signs in over plain http and returns the cookie header that carries the session. */
async function signedInCookie(key: string): Promise<{ cookie: string }> {
  const res = await signIn(key);
  expect(res.status).toBe(303);
  const { name, value } = parseSetCookie(res.headers.get("set-cookie") ?? "");
  expect(name).toBe("cb_session");
  return { cookie: `${name}=${value}` };
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

/** Revokes a key through the running server's local admin channel (PGlite admits one process). */
async function revokeViaAdminChannel(keyId: string): Promise<void> {
  const lock = JSON.parse(fs.readFileSync(path.join(store.dataDir, "pglite.lock"), "utf8")) as {
    port: number;
    adminToken: string;
  };
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
    // One character changed (a key that ends in "x" would otherwise be signed in with itself: a 1-in-62 flake).
    const key = extraKeys[1].key;
    const wrong = await signIn(`${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`);
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const crossSite = await signIn(extraKeys[1].key, { origin: "https://evil.example" });
    expect(crossSite.headers.get("set-cookie")).toBeNull();
  });

  it("refuses forged, tampered, expired and malformed cookies: 401 on /v1, sign-in redirect on pages", async () => {
    const valid = sessions.costAlpha;
    const [payload, signature] = valid.split(".");
    const platformPayload = sessions.platformCost.split(".")[0];
    const { s: costSession } = JSON.parse(Buffer.from(payload, "base64url").toString()) as { s: string };
    const longLived = Buffer.from(JSON.stringify({ s: costSession, exp: 4_000_000_000 })).toString("base64url");
    const oldFormat = Buffer.from(JSON.stringify({ k: fixture.keyIds.costAlpha, exp: 4_000_000_000 })).toString(
      "base64url",
    );
    process.env.SESSION_SECRET = SESSION_SECRET;
    const forged = [
      `${platformPayload}.${signature}`, // another session under this token's signature
      `${longLived}.${signature}`, // a later expiry under the old signature
      `${payload}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      `${payload}.`,
      payload,
      sessions.expired,
      `${payload}.${signature}%ZZ`, // malformed percent-escape (was a 500)
      "%E0%A4%A",
      createSessionToken("ses_does_not_exist", 4_000_000_000), // signed, but no such session
      `${oldFormat}.${signature}`, // the pre-session token format, naming a key
    ];
    // Sanity: the untampered token works, so the refusals below are about the tampering.
    expect((await http(server.baseUrl, "/v1/accounts", { headers: { cookie: `cb_session=${valid}` } })).status).toBe(
      200,
    );
    for (const token of forged) {
      for (const name of ["cb_session", "__Host-cb_session"]) {
        expectUnauthorized(await http(server.baseUrl, "/v1/calls", { headers: { cookie: `${name}=${token}` } }));
      }
      for (const page of PORTAL_PAGES)
        expectSignInRedirect(await http(server.baseUrl, page, { headers: { cookie: `cb_session=${token}` } }));
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

describe("server-side sessions (README, Architecture: portal sessions)", () => {
  it("sign-out ends the session on the server: the same cookie replayed right after is refused", async () => {
    const { key } = extraKeys[8];
    const cookie = await signedInCookie(key);
    expect((await http(server.baseUrl, "/v1/balances", { headers: cookie })).status).toBe(200);
    expect((await http(server.baseUrl, "/calls", { headers: cookie })).status).toBe(200);

    const out = await http(server.baseUrl, "/session/sign-out", {
      method: "POST",
      headers: { ...cookie, origin: server.baseUrl },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^cb_session=;.*Max-Age=0/);

    // A copy of the cookie (another tab, a stolen value) no longer works, on /v1 and on pages.
    expectUnauthorized(await http(server.baseUrl, "/v1/balances", { headers: cookie }));
    expectSignInRedirect(await http(server.baseUrl, "/calls", { headers: cookie }));
    expectSignInRedirect(await http(server.baseUrl, "/", { headers: cookie }));
    // Signing out ends the session, not the key.
    expect((await http(server.baseUrl, "/v1/balances", { headers: bearer(key) })).status).toBe(200);
  });

  it("over https only the __Host- cookie counts; over plain http only cb_session", async () => {
    const { key } = extraKeys[9];
    const https = { "x-forwarded-proto": "https" };
    const signedIn = await signIn(key, https);
    const { name, value } = parseSetCookie(signedIn.headers.get("set-cookie") ?? "");
    expect(name).toBe("__Host-cb_session");

    const good = await http(server.baseUrl, "/v1/balances", {
      headers: { ...https, cookie: `__Host-cb_session=${value}` },
    });
    expect(good.status).toBe(200);
    // A cookie without the prefix can be planted by a sibling subdomain or over plain http: not over https.
    expectUnauthorized(
      await http(server.baseUrl, "/v1/balances", { headers: { ...https, cookie: `cb_session=${value}` } }),
    );
    expectSignInRedirect(
      await http(server.baseUrl, "/calls", { headers: { ...https, cookie: `cb_session=${value}` } }),
    );
    // ...and a __Host- cookie is never sent over plain http: one arriving there is not trusted either.
    expectUnauthorized(
      await http(server.baseUrl, "/v1/balances", { headers: { cookie: `__Host-cb_session=${value}` } }),
    );
    expect(
      (await http(server.baseUrl, "/calls", { headers: { ...https, cookie: `__Host-cb_session=${value}` } })).status,
    ).toBe(200);
  });

  it("a cookie-authenticated POST must come from the portal's own origin; Bearer requests are unaffected", async () => {
    const { key } = extraKeys[10];
    const cookie = await signedInCookie(key);
    const post = (headers: Record<string, string>, i: number) =>
      http(server.baseUrl, "/v1/cdrs", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(makeCdr(`xorigin-${key.slice(3, 9)}`, i, fixture.alphaId, null)),
      });
    for (const [i, headers] of [
      { ...cookie, origin: "https://evil.example" },
      { ...cookie, origin: "null" },
      { ...cookie, "sec-fetch-site": "cross-site" },
      { ...cookie }, // neither Origin nor Sec-Fetch-Site: not provably from the portal
    ].entries()) {
      const res = await post(headers, i);
      expect(res.status, res.text).toBe(403);
      expect(problemDefect(res)).toBeNull();
      expect((res.json as { code: string }).code).toBe("cross_origin");
    }
    expect((await post({ ...cookie, origin: server.baseUrl }, 10)).status).toBe(201);
    expect((await post({ ...bearer(key), origin: "https://evil.example" }, 11)).status).toBe(201);
    const stored = await http(
      server.baseUrl,
      `/v1/calls?pageSize=1000&startTime[gte]=2026-02-01T00:00:00Z&startTime[lte]=2026-02-03T00:00:00Z`,
      { headers: bearer(key) },
    );
    const uuids = (stored.json as { calls: { uuid: string }[] }).calls
      .map((c) => c.uuid)
      .filter((u) => u.startsWith("xorigin-"));
    expect(uuids.sort()).toEqual([`xorigin-${key.slice(3, 9)}-000010`, `xorigin-${key.slice(3, 9)}-000011`]);
  });
});

describe("sign-in (calls:read keys only, a safe return path)", () => {
  it("refuses a key that cannot read calls (an ingest-only cdrs:write key) with a clear message, and sets no cookie", async () => {
    const res = await signIn(ingestOnly.key);
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toBeNull();
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/sign-in\?error=scope/);
    const page = await http(server.baseUrl, location);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      "This key can only send call records (cdrs:write); sign in with a key that can read calls.",
    );
    expect(page.text).not.toContain("Platform");
  });

  const OFF_SITE_NEXT = [
    "%2F%09%2Fevil.example", // the example: the tab is dropped by URL parsers -> //evil.example
    "%2F%0A%2Fevil.example",
    "%2F%0D%2Fevil.example",
    "%2F%5Cevil.example",
    "%5C%5Cevil.example",
    "%2F%2Fevil.example",
    "%2F.%2F%2Fevil.example",
    "https%3A%2F%2Fevil.example",
    "%09https%3A%2F%2Fevil.example",
    "javascript%3Aalert(1)",
  ];

  it("sends a signed-in user only to paths of this site, whatever `next` says", async () => {
    const cookie = await signedInCookie(extraKeys[11].key);
    for (const next of OFF_SITE_NEXT) {
      const res = await http(server.baseUrl, `/sign-in?next=${next}`, { headers: cookie });
      expect([302, 303, 307, 308], `${next}: ${res.status}`).toContain(res.status);
      const target = new URL(res.headers.get("location") ?? "", server.baseUrl);
      expect(target.origin, next).toBe(server.baseUrl);
      expect(target.pathname, next).toBe("/");
    }
    const kept = await http(server.baseUrl, "/sign-in?next=%2Fcalls%3Fdirection%3Dinbound", { headers: cookie });
    expect(kept.headers.get("location")).toBe("/calls?direction=inbound");
  });

  it("after signing in too, and never answers 500 to a control character in `next`", async () => {
    for (const next of ["/\t/evil.example", "/\r\n/evil.example", "/calls\r\nSet-Cookie: x=y", "\\\\evil.example"]) {
      const res = await signIn(extraKeys[12].key, {}, next);
      expect(res.status, JSON.stringify(next)).toBe(303);
      expect(res.headers.get("location"), JSON.stringify(next)).toBe("/");
      expect(res.headers.get("set-cookie")).toMatch(/^cb_session=/);
    }
    for (const next of ["%0A", "%2F%0A", "%2Fcalls%0D%0ALocation:%20https://evil.example", "%00"]) {
      const page = await http(server.baseUrl, `/sign-in?next=${next}`);
      expect(page.status, next).toBe(200);
      expect(page.text).toContain('<input type="hidden" name="next" value="/"/>');
    }
  });
});

describe('the admin channel (README "Admin CLI": loopback only, its token in the lock)', () => {
  it("is not served by the public server, only by its own loopback listener named in the lock", async () => {
    const lock = JSON.parse(fs.readFileSync(path.join(store.dataDir, "pglite.lock"), "utf8")) as {
      port: number;
      adminToken: string;
    };
    const argv = JSON.stringify({ argv: ["groups", "topup", "--group", fixture.alphaId, "--amount", "1"] });
    const headers = { "content-type": "application/json", "x-admin-token": lock.adminToken };
    // The right token through the public port (what a proxy would forward) gets nothing, whatever it claims.
    for (const extra of [{}, { "x-forwarded-for": "127.0.0.1", "x-real-ip": "127.0.0.1" }] as Record<
      string,
      string
    >[]) {
      const res = await http(server.baseUrl, "/internal/admin", {
        method: "POST",
        headers: { ...headers, ...extra },
        body: argv,
      });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('"result"');
    }
    expect(lock.port).not.toBe(server.port);
    // The listener answers on loopback only: on any other address of this machine nobody listens.
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal);
    if (external) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: external.address, port: lock.port });
        socket.once("connect", () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("error", () => resolve(true));
      });
      expect(refused, `${external.address}:${lock.port}`).toBe(true);
    }
  });
});

describe("authorization is checked where data is read", () => {
  it("refuses requests carrying x-middleware-subrequest without credentials", async () => {
    for (const value of SUBREQUEST_VALUES) {
      const headers = { "x-middleware-subrequest": value };
      for (const p of [
        "/v1/calls",
        "/v1/balances",
        "/v1/accounts",
        "/v1/calls/export",
        `/v1/calls/${fixture.alphaCallIds[0]}`,
        "/v1/rates?destination=44",
      ]) {
        expectUnauthorized(await http(server.baseUrl, p, { headers }));
      }
      const post = await http(server.baseUrl, "/v1/cdrs", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(makeCdr("mw", 1, fixture.alphaId, null)),
      });
      expectUnauthorized(post);
      for (const page of PORTAL_PAGES) expectSignInRedirect(await http(server.baseUrl, page, { headers }));
      // ...and with a forged session cookie.
      expectUnauthorized(
        await http(server.baseUrl, "/v1/calls", {
          headers: { ...headers, cookie: "cb_session=eyJrIjoia2V5X3gifQ.AAAA" },
        }),
      );
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
    // Bursts of concurrent requests until one is refused: one request after another, each slower than the refill
    // (1 / RATE s, a loaded machine), would never empty the bucket.
    const answers: HttpResult[] = [];
    for (let round = 0; round < 20 && !answers.some((a) => a.status === 429); round++)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: BURST + 3 }, () => http(server.baseUrl, "/v1/accounts", { headers: bearer(key) })),
        )),
      );
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    const admitted = answers.filter((a) => a.status === 200);
    expect(admitted.length).toBeGreaterThanOrEqual(BURST);
    for (const res of admitted) {
      expect(res.headers.get("ratelimit-limit")).toBe(String(BURST));
      expect(Number(res.headers.get("ratelimit-remaining"))).toBeLessThan(BURST);
      expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(0);
    }
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
    // ...and this one is served again once it waited as told (the longest Retry-After of the refused ones).
    const wait = Math.max(...limited.map((res) => Number(res.headers.get("retry-after"))));
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    expect((await http(server.baseUrl, "/v1/accounts", { headers: bearer(key) })).status).toBe(200);
  });

  it("answers 413 problem+json to a body over 5 MiB, declared or streamed, and stores nothing", async () => {
    const { key } = extraKeys[5];
    const cdr = makeCdr("huge", 1, fixture.alphaId, null);
    const padding = "x".repeat(5 * 1024 * 1024);
    const big = JSON.stringify({ ...cdr, hangupCause: "NORMAL_CLEARING", recordingUrl: null, pad: padding });
    const declared = await http(server.baseUrl, "/v1/cdrs", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: big,
    });
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

    const stored = await http(server.baseUrl, `/v1/calls?to=${encodeURIComponent(cdr.to)}&pageSize=1000`, {
      headers: bearer(extraKeys[7].key),
    });
    expect(stored.status).toBe(200);
    expect((stored.json as { calls: { uuid: string }[] }).calls.some((c) => c.uuid === cdr.uuid)).toBe(false);
  });
});
