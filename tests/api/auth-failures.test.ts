import { describe, expect, inject, it } from "vitest";
import { generateApiKeySecret } from "@/lib/auth/api-key-format";
import { bearer, http, type HttpResult } from "@/lib/testing/http-client";
import { PROXY_ADDRESS } from "./global-setup";

// Failed authentications per client address (docs/contract.md §6), on the server that trusts 127.0.0.2 as its
// proxy and allows 10 refused credentials per address (one more a minute: none comes back during a test). Each test
// is its own client: another loopback address, which the server sees as the TCP peer.

const { proxied: server } = inject("edgeServers");
const BURST = 10;

function get(localAddress: string, headers: Record<string, string>): Promise<HttpResult> {
  return http(server.baseUrl, "/v1/accounts", { headers, localAddress });
}

function signIn(localAddress: string, key: string, accept = "*/*"): Promise<HttpResult> {
  return http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept },
    body: new URLSearchParams({ key }).toString(),
    localAddress,
  });
}

function expectLimited(res: HttpResult): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.json).toMatchObject({ status: 429, code: "rate_limited" });
  // One refused credential comes back a minute on this server.
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
}

describe("refused API keys per client address", () => {
  it("answers the 11th bad key from one address with 429 and Retry-After; a good key from there still works", async () => {
    const client = "127.0.0.3";
    for (let i = 0; i < BURST; i++) {
      const res = await get(client, bearer(generateApiKeySecret()));
      expect(res.status, `bad key ${i + 1}`).toBe(401);
    }
    expectLimited(await get(client, bearer(generateApiKeySecret())));
    // Malformed headers and bad session cookies are refused credentials too.
    expectLimited(await get(client, { authorization: "Basic dXNlcjpwYXNz" }));
    expectLimited(await get(client, { cookie: "cb_session=forged.signature" }));
    // A valid key is neither slowed nor refused, and its success gives the bad ones no allowance back.
    const good = await get(client, bearer(server.key));
    expect(good.status, good.text).toBe(200);
    expectLimited(await get(client, bearer(generateApiKeySecret())));
    // No credential at all is not a refused one: 401, as ever.
    expect((await get(client, {})).status).toBe(401);
    // Another address has its own allowance.
    expect((await get("127.0.0.4", bearer(generateApiKeySecret()))).status).toBe(401);
  });

  it("is not escaped by a client writing X-Forwarded-For itself", async () => {
    const client = "127.0.0.5";
    const answers: number[] = [];
    for (let i = 0; i <= BURST; i++)
      answers.push(
        (await get(client, { ...bearer(generateApiKeySecret()), "x-forwarded-for": `198.51.100.${i}` })).status,
      );
    expect(answers).toEqual([...Array<number>(BURST).fill(401), 429]);
  });

  it("behind the trusted proxy counts each client it names on its own", async () => {
    const via = (client: string, key: string) =>
      get(PROXY_ADDRESS, { ...bearer(key), "x-forwarded-for": client, "x-forwarded-proto": "https" });
    for (let i = 0; i < BURST; i++) expect((await via("203.0.113.80", generateApiKeySecret())).status).toBe(401);
    expectLimited(await via("203.0.113.80", generateApiKeySecret()));
    // Another client of the same proxy, and the limited client with a good key: unaffected.
    expect((await via("203.0.113.81", generateApiKeySecret())).status).toBe(401);
    expect((await via("203.0.113.80", server.key)).status).toBe(200);
    // A client cannot hide behind the proxy's address by prepending one of its own.
    for (let i = 0; i < BURST; i++)
      expect((await via(`10.9.9.${i}, 203.0.113.82`, generateApiKeySecret())).status).toBe(401);
    expectLimited(await via("10.9.9.99, 203.0.113.82", generateApiKeySecret()));
  });
});

describe("refused sign-ins per client address", () => {
  it("answers the 11th refused key with 429 (a page for a browser), and still signs in a valid key", async () => {
    const client = "127.0.0.6";
    for (let i = 0; i < BURST; i++) {
      const res = await signIn(client, generateApiKeySecret());
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/sign-in?error=invalid");
    }
    expectLimited(await signIn(client, generateApiKeySecret()));
    const page = await signIn(client, generateApiKeySecret(), "text/html,application/xhtml+xml");
    expect(page.status).toBe(429);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(page.text).toContain("Too many sign-in attempts");
    const valid = await signIn(client, server.key);
    expect(valid.status).toBe(303);
    expect(valid.headers.get("set-cookie")).toMatch(/^cb_session=./);
  });

  it("shares one allowance per address with refused API credentials", async () => {
    const client = "127.0.0.7";
    for (let i = 0; i < BURST / 2; i++) expect((await signIn(client, generateApiKeySecret())).status).toBe(303);
    for (let i = 0; i < BURST / 2; i++) expect((await get(client, bearer(generateApiKeySecret()))).status).toBe(401);
    expectLimited(await signIn(client, generateApiKeySecret()));
    expectLimited(await get(client, bearer(generateApiKeySecret())));
  });
});
