import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { http, type HttpResult } from "@/lib/testing/http-client";
import { PERSON_PASSWORD } from "./fixtures/people";
import { apiServers, type ApiServer } from "./helpers";

// People sign in by email and password (POST /session); their role decides the session's scopes (README "People,
// organizations and roles"). Each test signs in from its own loopback address: the per-address allowance of
// sign-in attempts is the server's default (30 a minute).

const COST_FIELDS = /"(buyCost|margin|supplierId)"/;

function signIn(server: { baseUrl: string }, from: string, email: string, password: string): Promise<HttpResult> {
  return http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, next: "/calls" }).toString(),
    localAddress: from,
  });
}

function cookieOf(res: HttpResult): string {
  const cookie = /^(cb_session=[^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`no session cookie: ${res.status} ${res.headers.get("location")}`);
  return cookie;
}

async function signedIn(server: ApiServer, from: string, email: string): Promise<string> {
  const res = await signIn(server, from, email, PERSON_PASSWORD);
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/calls");
  return cookieOf(res);
}

function get(server: { baseUrl: string }, path: string, cookie: string): Promise<HttpResult> {
  return http(server.baseUrl, path, { headers: { cookie } });
}

const execFileAsync = promisify(execFile);

/**
 * The admin CLI on the server's database: through its admin channel (PGlite), or straight to PostgreSQL. Run
 * without blocking: a synchronous child held this process past the server's keep-alive timeout on a busy machine,
 * and the next request went out on a socket the server had closed ("other side closed").
 */
async function admin(server: ApiServer, args: string[]): Promise<void> {
  const env = { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: server.databaseUrl ?? "" };
  try {
    await execFileAsync("npm", ["run", "-s", "admin", "--", ...args], { env, encoding: "utf8" });
  } catch (e) {
    throw new Error(`admin ${args.join(" ")} failed: ${(e as { stderr?: string }).stderr ?? String(e)}`);
  }
}

describe.each(apiServers())("people on $engine", (server) => {
  it("a viewer's session reads calls without any cost field; the owner of a reseller group gets them", async () => {
    const viewer = await signedIn(server, "127.0.1.1", server.people.viewerA);
    const calls = await get(server, "/v1/calls?pageSize=100", viewer);
    expect(calls.status, calls.text).toBe(200);
    expect(calls.text).not.toMatch(COST_FIELDS);
    const csv = await get(server, "/v1/calls/export", viewer);
    expect(csv.status).toBe(200);
    expect(csv.text.split("\n")[0]).not.toMatch(/buyCost|margin|supplier/i);
    expect((await get(server, `/v1/calls?supplierId=${server.supplierId}`, viewer)).status).toBe(403);

    const owner = await signedIn(server, "127.0.1.1", server.people.ownerA);
    const costly = await get(server, "/v1/calls?pageSize=100", owner);
    expect(costly.text).toMatch(/"buyCost"/);
    // A billing person of the same reseller group: its cost role is owner only.
    const billing = await signedIn(server, "127.0.1.1", server.people.billingA);
    expect((await get(server, "/v1/calls?pageSize=100", billing)).text).not.toMatch(COST_FIELDS);
  });

  // Issue 30: the billing role holds the money pages, low-balance alerts among them (alerts:write); a viewer does not.
  it("a billing person sets their group's low-balance thresholds; a viewer may read none of it", async () => {
    const put = (cookie: string, thresholds: string[]) =>
      http(server.baseUrl, "/v1/alert-thresholds", {
        method: "PUT",
        headers: { cookie, origin: server.baseUrl, "content-type": "application/json" },
        body: JSON.stringify({ thresholds }),
      });
    const billing = await signedIn(server, "127.0.1.6", server.people.billingA);
    const saved = await put(billing, ["25"]);
    expect(saved.status, saved.text).toBe(200);
    const read = await get(server, "/v1/alert-thresholds", billing);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ thresholds: [{ amount: 25 }] });
    expect((await put(billing, [])).status).toBe(200);

    const viewer = await signedIn(server, "127.0.1.6", server.people.viewerA);
    expect((await put(viewer, ["25"])).status).toBe(403);
    expect((await get(server, "/v1/alert-thresholds", viewer)).status).toBe(403);
  });

  it("platform staff see every group, with cost", async () => {
    const staff = await signedIn(server, "127.0.1.2", server.people.staff);
    const accounts = await get(server, "/v1/accounts", staff);
    // Every fixture group (provisioning tests may have created more by now).
    const ids = (accounts.json as { accounts: { id: string }[] }).accounts.map((a) => a.id);
    expect(ids).toEqual(expect.arrayContaining(Object.values(server.groups).map((g) => g.id)));
    expect((await get(server, "/v1/calls?pageSize=5", staff)).text).toMatch(/"buyCost"/);
    expect((await get(server, "/v1/balances", staff)).status).toBe(400);
  });

  it("a wrong password and an unknown email get the same answer, and no cookie", async () => {
    const wrong = await signIn(server, "127.0.1.3", server.people.viewerA, "not the password");
    const unknown = await signIn(server, "127.0.1.3", "nobody@fixture.test", "not the password");
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/sign-in?error=password&next=%2Fcalls");
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("answers 429 with Retry-After once an account has spent its attempts, whether or not it exists", async () => {
    // limitedA exists (and signs in nowhere else); the other does not.
    for (const email of [server.people.limitedA, "no-such-person@fixture.test"]) {
      const answers: number[] = [];
      for (let i = 0; i < 11; i++) answers.push((await signIn(server, `127.0.2.${i + 1}`, email, "wrong")).status);
      expect(answers).toEqual([...Array<number>(10).fill(303), 429]);
    }
    const limited = await signIn(server, "127.0.2.20", "no-such-person@fixture.test", "wrong");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.json).toMatchObject({ status: 429, code: "rate_limited" });
    // The email's limit was spent, not the address's (each attempt came from another one).
    expect((limited.json as { detail: string }).detail).toMatch(/^Too many attempts for this account: retry in/);
  });

  it("answers 429 once an address has spent its attempts, over many accounts", async () => {
    // The bucket refills one attempt every 2 s: on a busy machine the 31st may find one, so send until refused.
    const answers: number[] = [];
    for (let i = 0; i < 60 && answers.at(-1) !== 429; i++) {
      answers.push((await signIn(server, "127.0.3.1", `spray-${i}@fixture.test`, "wrong")).status);
    }
    expect(answers.slice(0, 30)).toEqual(Array<number>(30).fill(303));
    expect(answers.at(-1)).toBe(429);
    const limited = await signIn(server, "127.0.3.1", "spray-x@fixture.test", "wrong");
    expect((limited.json as { detail: string }).detail).toMatch(/^Too many attempts from this address: retry in/);
    // Another address is not held back.
    expect((await signIn(server, "127.0.3.2", "spray-0@fixture.test", "wrong")).status).toBe(303);
  });

  it("a session is new at every sign-in, and signing in again ends the one the browser held", async () => {
    const first = await signedIn(server, "127.0.1.4", server.people.viewerA);
    const res = await http(server.baseUrl, "/session", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: first },
      body: new URLSearchParams({ email: server.people.viewerA, password: PERSON_PASSWORD }).toString(),
      localAddress: "127.0.1.4",
    });
    const second = cookieOf(res);
    expect(second).not.toBe(first);
    expect((await get(server, "/v1/balances", first)).status).toBe(401);
    expect((await get(server, "/v1/balances", second)).status).toBe(200);
  });

  it("a role change ends the member's sessions (they sign in again with the new role); a removal refuses the next request", async () => {
    const member = await signedIn(server, "127.0.1.5", server.people.memberA);
    expect((await get(server, "/v1/calls?pageSize=5", member)).text).not.toMatch(COST_FIELDS);
    await admin(server, [
      "people",
      "role",
      "--email",
      server.people.memberA,
      "--group",
      server.groups.a.id,
      "--role",
      "owner",
    ]);
    // The cookie from before the change carries neither role: 401. Signed in again, the new role (owner: cost).
    expect((await get(server, "/v1/calls?pageSize=5", member)).status).toBe(401);
    const again = await signedIn(server, "127.0.1.5", server.people.memberA);
    expect((await get(server, "/v1/calls?pageSize=5", again)).text).toMatch(/"buyCost"/);

    const removed = await signedIn(server, "127.0.1.5", server.people.removedA);
    expect((await get(server, "/v1/balances", removed)).status).toBe(200);
    await admin(server, ["people", "remove", "--email", server.people.removedA, "--group", server.groups.a.id]);
    const after = await get(server, "/v1/balances", removed);
    expect(after.status).toBe(401);
    expect((await signIn(server, "127.0.1.5", server.people.removedA, PERSON_PASSWORD)).headers.get("location")).toBe(
      "/sign-in?error=no_organization&next=%2Fcalls",
    );
  });
});

describe("key sign-in", () => {
  it("is off unless PORTAL_KEY_SIGN_IN=1: a valid key is refused at the sign-in form", async () => {
    const limited = inject("rateLimitedServer");
    const res = await http(limited.baseUrl, "/session", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: limited.key }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in?error=key_disabled");
    expect(res.headers.get("set-cookie")).toBeNull();
  });
});
