import fs from "node:fs";
import { describe, expect, it, inject } from "vitest";
import { generateApiKeySecret } from "@/lib/auth/api-key-format";
import { bearer, http, type HttpResult } from "@/lib/testing/http-client";
import { api, apiServers, query, type ApiResponse, type ApiServer } from "./helpers";

// docs/contract.md §3, row by row, over HTTP, on both engines.

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { param: string; message: string }[];
}

function expectProblem(res: ApiResponse, status: number, code: string): ProblemBody {
  expect({ status: res.status, text: res.text }).toMatchObject({ status });
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  const body = res.body as ProblemBody;
  expect(body).toMatchObject({ status, code });
  expect(typeof body.type).toBe("string");
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return body;
}

const READ_ENDPOINTS = (s: ApiServer) => [
  "/v1/calls",
  `/v1/calls/${s.calls[0].id}`,
  "/v1/balances",
  "/v1/rates?destination=442071234567",
  "/v1/accounts",
  `/v1/accounts/${s.groups.a.id}`,
];

describe.each(apiServers())("docs/contract.md §3 errors on $engine", (server) => {
  const callOfA = server.calls.find((c) => c.group === "a")!;
  const callOfB = server.calls.find((c) => c.group === "b")!;

  it("401 unauthorized with WWW-Authenticate: missing, malformed, unknown and revoked keys", async () => {
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      notBearer: `Basic ${Buffer.from("a:b").toString("base64")}`,
      emptyBearer: "Bearer ",
      garbage: "Bearer not-a-key",
      unknown: `Bearer ${generateApiKeySecret()}`,
      revoked: `Bearer ${server.keys.revokedA}`,
    };
    for (const path of READ_ENDPOINTS(server)) {
      for (const [name, authorization] of Object.entries(cases)) {
        const res = await api(server, path, authorization === undefined ? {} : { authorization });
        expectProblem(res, 401, "unauthorized");
        expect(res.headers.get("www-authenticate"), `${name} on ${path}`).toMatch(/^Bearer/);
      }
    }
  });

  it("403 insufficient_scope for a key without calls:read", async () => {
    for (const path of READ_ENDPOINTS(server)) {
      expectProblem(await api(server, path, { key: "ingestA" }), 403, "insufficient_scope");
      expectProblem(await api(server, path, { key: "ingestPlatform" }), 403, "insufficient_scope");
    }
  });

  it("404 not_found as problem+json for a /v1 path no endpoint serves", async () => {
    for (const path of ["/v1/nope", "/v1/calls/1/extra", "/v1/"]) {
      expectProblem(await api(server, path, { key: "readA" }), 404, "not_found");
    }
  });

  it("404 not_found for unknown, malformed and other groups' call ids, never 403", async () => {
    for (const id of [
      "999999999",
      "0",
      "abc",
      "-1",
      "1.5",
      "9".repeat(30),
      "9223372036854775808",
      encodeURIComponent("1 OR 1=1"),
    ]) {
      expectProblem(await api(server, `/v1/calls/${id}`, { key: "platformRead" }), 404, "not_found");
    }
    expectProblem(await api(server, `/v1/calls/${callOfB.id}`, { key: "readA" }), 404, "not_found");
    expectProblem(await api(server, `/v1/calls/${callOfB.id}`, { key: "costA" }), 404, "not_found");
    expectProblem(await api(server, `/v1/calls/${callOfA.id}`, { key: "readB" }), 404, "not_found");
    expectProblem(await api(server, `/v1/accounts/${server.groups.b.id}`, { key: "readA" }), 404, "not_found");
    expectProblem(await api(server, "/v1/accounts/bg_unknown", { key: "platformRead" }), 404, "not_found");
  });

  it("400 invalid_parameter names the parameter", async () => {
    const cases: [string, string][] = [
      ["/v1/calls?pageSize=0", "pageSize"],
      ["/v1/calls?pageSize=1001", "pageSize"],
      ["/v1/calls?pageSize=abc", "pageSize"],
      ["/v1/calls?pageSize=1.5", "pageSize"],
      ["/v1/calls?pageSize=-3", "pageSize"],
      ["/v1/calls?pageSize=", "pageSize"],
      [`/v1/calls${query({ "startTime[gte]": "yesterday" })}`, "startTime[gte]"],
      [`/v1/calls${query({ "startTime[lte]": "2026-02-30T00:00:00Z" })}`, "startTime[lte]"],
      [
        `/v1/calls${query({ "startTime[gte]": "2026-01-02T00:00:00Z", "startTime[lte]": "2026-01-01T00:00:00Z" })}`,
        "startTime[gte]",
      ],
      ["/v1/calls?direction=sideways", "direction"],
      ["/v1/calls?direction=", "direction"],
      ["/v1/rates", "destination"],
      ["/v1/rates?destination=", "destination"],
      ["/v1/rates?destination=44abc", "destination"],
      ["/v1/rates?destination=%2B%2B44", "destination"],
      [`/v1/rates?destination=${"4".repeat(40)}`, "destination"],
    ];
    for (const [path, param] of cases) {
      const body = expectProblem(await api(server, path, { key: "readA" }), 400, "invalid_parameter");
      expect(
        body.errors?.map((e) => e.param),
        path,
      ).toContain(param);
    }
  });

  it("400 invalid_parameter for dates PostgreSQL cannot hold, on the listing and the CSV export (never 500 or a dropped download)", async () => {
    for (const value of ["0000-01-01", "0000-01-01T00:00:00Z", "9999-12-31T23:00:00-05:00"]) {
      for (const name of ["startTime[gte]", "startTime[lte]"]) {
        for (const path of ["/v1/calls", "/v1/calls/export"]) {
          const res = await api(server, `${path}${query({ [name]: value })}`, { key: "readA" });
          const body = expectProblem(res, 400, "invalid_parameter");
          expect(
            body.errors?.map((e) => e.param),
            `${path} ${name}=${value}`,
          ).toEqual([name]);
        }
      }
    }
    // the earliest and latest dates that are valid still answer
    const edges = query({ "startTime[gte]": "0001-01-01", "startTime[lte]": "9999-12-31" });
    expect((await api(server, `/v1/calls${edges}`, { key: "readA" })).status).toBe(200);
    expect((await api(server, `/v1/calls/export${edges}`, { key: "readA" })).status).toBe(200);
  });

  it("accepts what the contract allows: a leading + on destination, date-only bounds, unknown parameters", async () => {
    const plus = await api<{ destination: string; matchedPrefix: string }>(
      server,
      "/v1/rates?destination=%2B442071234567",
      { key: "readA" },
    );
    expect(plus.status).toBe(200);
    expect(plus.body).toMatchObject({ destination: "+442071234567", matchedPrefix: "4420" });
    expect((await api(server, "/v1/calls?startTime[gte]=2026-01-05&foo=bar&pageSize=5", { key: "readA" })).status).toBe(
      200,
    );
  });

  it("400 invalid_cursor for malformed, tampered and foreign cursors", async () => {
    const first = await api<{ nextPageUrl: string }>(server, "/v1/calls?pageSize=2", { key: "readA" });
    const cursor = new URL(first.body.nextPageUrl).searchParams.get("cursor")!;
    const [payload, signature] = cursor.split(".");
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const bad = [
      "garbage",
      "",
      ".",
      `${payload}.`,
      `${flip(payload, 3)}.${signature}`,
      `${payload}.${flip(signature, 2)}`,
      `${Buffer.from(JSON.stringify({ t: 0, i: "1", h: "x" })).toString("base64url")}.${signature}`,
      cursor.slice(0, -1),
      `${cursor}x`,
      "x".repeat(10_000),
    ];
    for (const c of bad) {
      const res = await api(server, `/v1/calls?pageSize=2&cursor=${encodeURIComponent(c)}`, { key: "readA" });
      if (c === "") expect(res.status, "an empty cursor is a first page").toBe(200);
      else expectProblem(res, 400, "invalid_cursor");
    }
    // Bound to the filters it was issued for, and to the key's reach.
    expectProblem(
      await api(server, `/v1/calls?pageSize=2&direction=inbound&cursor=${cursor}`, { key: "readA" }),
      400,
      "invalid_cursor",
    );
    expectProblem(
      await api(server, `/v1/calls?pageSize=2&to=44&cursor=${cursor}`, { key: "readA" }),
      400,
      "invalid_cursor",
    );
    expectProblem(await api(server, `/v1/calls?pageSize=2&cursor=${cursor}`, { key: "readB" }), 400, "invalid_cursor");
    expectProblem(
      await api(server, `/v1/calls?pageSize=2&cursor=${cursor}`, { key: "platformRead" }),
      400,
      "invalid_cursor",
    );
    // Another page size with the same filters is fine.
    expect((await api(server, `/v1/calls?pageSize=9&cursor=${cursor}`, { key: "readA" })).status).toBe(200);
  });

  it("400 billing_group_required for a platform key on balances and rates, naming /v1/accounts", async () => {
    for (const path of ["/v1/balances", "/v1/rates?destination=442071234567"]) {
      for (const key of ["platformRead", "platformCost"] as const) {
        const body = expectProblem(await api(server, path, { key }), 400, "billing_group_required");
        expect(body.detail).toContain("/v1/accounts");
      }
    }
  });

  it("404 no_rate when no prefix of the destination is in the card", async () => {
    expectProblem(await api(server, "/v1/rates?destination=999123", { key: "readA" }), 404, "no_rate");
    expectProblem(await api(server, "/v1/rates?destination=14155550100", { key: "readB" }), 404, "no_rate");
  });

  it("never answers 500 to very long, non-ASCII or control-character values", async () => {
    // Long enough to exceed every bound, short enough to stay under Node's 16 KiB header limit (431).
    const long = "9".repeat(5_000);
    const values = [
      long,
      "ü",
      "日本語",
      "🙂",
      "\u0000",
      "\u0007bell",
      "%",
      "_",
      "\\",
      "'; DROP TABLE calls; --",
      "\uFFFD",
    ];
    const statuses = new Set<number>();
    for (const v of values) {
      for (const name of ["to", "hangupCause", "direction", "startTime[gte]", "startTime[lte]", "pageSize", "cursor"]) {
        const res = await api(server, `/v1/calls${query({ [name]: v })}`, { key: "readA" });
        expect(res.status, `${name}=${JSON.stringify(v.slice(0, 20))}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
        expect([200, 400]).toContain(res.status);
        if (res.status === 200) expect((res.body as { calls: unknown[] }).calls.length >= 0).toBe(true);
        statuses.add(res.status);
      }
      const rate = await api(server, `/v1/rates${query({ destination: v })}`, { key: "readA" });
      expect(rate.status).toBeLessThan(500);
      const single = await api(server, `/v1/calls/${encodeURIComponent(v)}`, { key: "readA" });
      expect([400, 404]).toContain(single.status);
      const account = await api(server, `/v1/accounts/${encodeURIComponent(v)}`, { key: "platformRead" });
      expect([400, 404]).toContain(account.status);
    }
    // Long and control-character filters are refused; plain non-ASCII text is an empty page.
    expect((await api(server, `/v1/calls${query({ to: long })}`, { key: "readA" })).status).toBe(400);
    expect((await api(server, `/v1/calls${query({ to: "a\u0000b" })}`, { key: "readA" })).status).toBe(400);
    const nonAscii = await api<{ calls: unknown[] }>(server, `/v1/calls${query({ to: "日本語", hangupCause: "ü" })}`, {
      key: "readA",
    });
    expect(nonAscii.status).toBe(200);
    expect(nonAscii.body.calls).toEqual([]);
    expect(statuses).toEqual(new Set([200, 400]));
  });

  it("400/422 naming the parameter for the inputs that answered 500: a NUL in text, a date rounded past 9999, a zone only Node knows", async () => {
    const queries: [string, string, string][] = [
      // Rounded up to whole hours or days for the rollups: year 10000, which the statement could not write.
      ["/v1/usage", "startTime[gte]", "9999-12-31T23:00:01Z"],
      ["/v1/usage?groupBy=destination", "startTime[gte]", "9999-12-31T00:00:01Z"],
      ["/v1/usage", "startTime[lte]", "9999-12-31T23:59:59.999Z"],
      ["/v1/calls", "startTime[lte]", "9999-12-31T23:59:59.999Z"],
      // Node's Intl knows it, the database does not (AT TIME ZONE failed with 22023).
      ["/v1/usage", "timeZone", "US/Pacific-New"],
      ["/v1/usage?groupBy=direction", "timeZone", "US/Pacific-New"],
      // A NUL reached SQL through a parameter with its own, looser schema.
      ["/v1/usage", "account", "\u0000"],
      ["/v1/usage", "billingGroupId", "a\u0000"],
    ];
    for (const [path, name, value] of queries) {
      const res = await api(server, `${path}${path.includes("?") ? "&" : "?"}${query({ [name]: value }).slice(1)}`, {
        key: "platformCost",
      });
      const body = expectProblem(res, 400, "invalid_parameter");
      expect(
        body.errors?.map((e) => e.param),
        `${path} ${name}=${JSON.stringify(value)}`,
      ).toEqual([name]);
    }
    // The same zone's day report still works under a name the database knows.
    expect(
      (await api(server, `/v1/usage${query({ timeZone: "America/Los_Angeles" })}`, { key: "platformCost" })).status,
    ).toBe(200);

    for (const [field, value] of [
      ["billingGroupId", "\u0000"],
      ["uuid", "auth-\u0000"],
      ["from", "1555\u0000"],
    ] as const) {
      const res = await api(server, "/v1/authorizations", {
        key: "ingestPlatform",
        body: {
          uuid: `nul-${field}`,
          destination: "442071234567",
          billingGroupId: server.groups.scratch.id,
          [field]: value,
        },
      });
      const body = expectProblem(res, 422, "invalid_request_body");
      expect(
        body.errors?.map((e) => e.param),
        field,
      ).toEqual([field]);
    }
  });

  it("JSON answers carry Cache-Control: no-store and an X-Request-Id that is in the server's log line", async () => {
    const ok = await api(server, "/v1/balances", { key: "readA" });
    const err = await api(server, "/v1/balances", { key: "platformRead" });
    for (const res of [ok, err]) {
      // Small answers add no-transform (lib/api/cache-control.ts).
      expect(res.headers.get("cache-control")?.split(/,\s*/)).toContain("no-store");
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(/^[\w.-]{8,64}$/);
    }
    expect(ok.headers.get("x-request-id")).not.toBe(err.headers.get("x-request-id"));
    const given = `trace-${Date.now()}`;
    const traced = await api(server, "/v1/accounts", { key: "readA", headers: { "x-request-id": given } });
    expect(traced.headers.get("x-request-id")).toBe(given);

    const lines = fs
      .readFileSync(server.logFile, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("{"));
    const entries = lines.map((l) => JSON.parse(l) as { requestId?: string; status?: number; path?: string });
    for (const res of [ok, err, traced]) {
      const entry = entries.find((e) => e.requestId === res.headers.get("x-request-id"));
      expect(entry, `log line for ${res.headers.get("x-request-id")}`).toBeDefined();
      expect(entry!.status).toBe(res.status);
    }
  });
});

describe("docs/contract.md §3: 429 rate_limited", () => {
  const limited = inject("rateLimitedServer");

  it("answers 429 with Retry-After and RateLimit headers once the burst is spent", async () => {
    const results: HttpResult[] = [];
    for (let i = 0; i < 8; i++)
      results.push(await http(limited.baseUrl, "/v1/accounts", { headers: bearer(limited.key) }));
    expect(results[0].status).toBe(200);
    expect(results[0].headers.get("ratelimit-limit")).toBe("3");
    const refused = results.find((r) => r.status === 429);
    expect(refused, "a request beyond the burst of 3").toBeDefined();
    expect(refused!.headers.get("content-type")).toContain("application/problem+json");
    expect(refused!.json).toMatchObject({ status: 429, code: "rate_limited" });
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.get("ratelimit-remaining")).toBe("0");
  });
});
