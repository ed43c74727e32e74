import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_TABLE, type ErrorCode } from "@/lib/errors/api-error";
import { createPortalSession } from "@/lib/auth/portal-sessions";
import { ENGINES } from "@/lib/testing/engines";
import { AppServer, ROOT, Store, http, problemDefect, testSeed, type HttpResult } from "./harness";
import { COST_KEYS, makeCdr, seedFixture, type Fixture, type FixtureKey } from "./seed";

/**
 * Property-based fuzzing of every /v1 operation listed in /v1/openapi.json, on both engines:
 * random and hostile query values, path ids, headers, cookies and bodies. Every answer must be a
 * status the document lists for that operation (never 500), errors must be problem+json whose
 * code agrees with the status, nothing may leak a stack trace or SQL, and a key without
 * `calls:read_cost` must never see a cost field.
 */

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS || 120);
const COST_FIELDS = ["buyCost", "margin", "supplierId", "buyRate"];
const SESSION_SECRET = "reliability-fuzz-session-secret-0123456789";
// Answered by Node's HTTP parser before the app sees the request (e.g. a request line over 16 KiB).
const TRANSPORT_STATUSES = new Set([400, 414, 431]);

interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: "query" | "path"; required: boolean; schema: Record<string, unknown> }[];
  hasBody: boolean;
  statuses: Set<number>;
  scope: string | undefined;
}

type Credential =
  | { kind: "key"; name: FixtureKey }
  | { kind: "raw"; authorization: string; label: string }
  | { kind: "cookie"; cookie: string; label: string; cost: boolean; valid: boolean }
  | { kind: "none" };

interface FuzzRequest {
  op: Operation;
  pathValues: Record<string, string>;
  /** Already-encoded query pairs, or a raw query string. */
  query: string;
  credential: Credential;
  extraHeaders: Record<string, string>;
  body?: { contentType: string | null; text: string };
}

// ---------- values ----------

const HOSTILE_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\u0001\u001f\u007f",
  "'; DROP TABLE calls; --",
  "' OR '1'='1",
  "%",
  "%%",
  "_",
  "\\",
  "../../../etc/passwd",
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "0",
  "-1",
  "1.5",
  "1e3",
  "1e309",
  "0x10",
  "9".repeat(40),
  "-9223372036854775809",
  "9223372036854775808",
  "１２３",
  "٣٤٥",
  "+44 20 7946 0000",
  "++44",
  "+",
  "2026-02-30T00:00:00Z",
  "2026-13-01",
  "2026-01-01T25:61:61Z",
  "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "9999-12-31T23:00:01Z",
  "-271821-04-20T00:00:00Z",
  "US/Pacific-New",
  "2026-02-01",
  "2026-02-01T00:00:00+14:00",
  "Ω≈ç√∫˜µ≤≥÷",
  "👨‍👩‍👧‍👦🇬🇧",
  "\u202e\u200b\ufeff",
  "\ud800",
  "x".repeat(65),
  "x".repeat(4000),
];

const hostileText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9+]{0,40}$/) },
);

function isoDate(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date("2025-06-01T00:00:00Z"), max: new Date("2026-12-31T00:00:00Z"), noInvalidDate: true })
    .chain((d) =>
      fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10), d.toISOString().replace("Z", "+02:00")),
    );
}

/** A plausible value for a documented parameter, from its schema. */
function validValue(
  schema: Record<string, unknown>,
  name: string,
  fixture: Fixture,
  cursors: string[],
): fc.Arbitrary<string> {
  if (name === "cursor") return cursors.length > 0 ? fc.constantFrom(...cursors) : fc.constant("x");
  if (name === "id") {
    const ids = [
      ...fixture.alphaCallIds.slice(0, 5),
      ...fixture.bravoCallIds.slice(0, 5),
      fixture.alphaId,
      fixture.bravoId,
      "bg_unknown",
      "1",
    ];
    return fc.constantFrom(...ids);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  if (schema.type === "integer")
    return fc.integer({ min: Number(schema.minimum ?? -5), max: Number(schema.maximum ?? 5000) }).map(String);
  if (Array.isArray(schema.anyOf)) return isoDate();
  if (typeof schema.pattern === "string" && name === "destination")
    return fc.stringMatching(new RegExp(schema.pattern));
  return fc.constantFrom("442071", "NORMAL_CLEARING", "normal_clearing", "4420", "1415", "%", "_");
}

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[^\w-]/g, "%ED%A0%80"); // lone surrogate: send the bytes a broken client would
  }
}

/** A query value as a broken client might send it: raw, unencoded or half-encoded. */
const rawQueryPiece = fc.constantFrom(
  "%zz",
  "%",
  "%E0%A4%A",
  "%00",
  "%C0%AF",
  "%FF%FE",
  "a+b",
  "a%2Bb",
  "&&",
  "==",
  "%3D%26",
);

function queryArb(op: Operation, fixture: Fixture, cursors: string[]): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === "query");
  const pieces = params.map((p) =>
    fc.option(
      fc.oneof(
        // a valid value
        {
          weight: 4,
          arbitrary: validValue(p.schema, p.name, fixture, cursors).map((v) => [`${encode(p.name)}=${encode(v)}`]),
        },
        // a hostile value
        { weight: 4, arbitrary: hostileText.map((v) => [`${encode(p.name)}=${encode(v)}`]) },
        // an array where a scalar is expected: repeated name, or name[]
        {
          weight: 1,
          arbitrary: fc
            .tuple(validValue(p.schema, p.name, fixture, cursors), hostileText)
            .map(([a, b]) => [`${encode(p.name)}=${encode(a)}`, `${encode(p.name)}=${encode(b)}`]),
        },
        {
          weight: 1,
          arbitrary: hostileText.map((v) => [`${encode(p.name + "[]")}=${encode(v)}`, `${encode(p.name)}[0]=1`]),
        },
        // broken percent-encoding
        { weight: 1, arbitrary: rawQueryPiece.map((v) => [`${encode(p.name)}=${v}`]) },
        // the name without a value
        { weight: 1, arbitrary: fc.constant([encode(p.name)]) },
      ),
      { freq: 3 },
    ),
  );
  const unknown = fc.array(
    fc.tuple(hostileText, hostileText).map(([k, v]) => `${encode(k)}=${encode(v)}`),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...pieces), unknown, fc.boolean()).map(([chosen, extra, shuffle]) => {
    const parts = [...chosen.flatMap((c) => c ?? []), ...extra];
    if (shuffle) parts.reverse();
    return parts.length ? `?${parts.join("&")}` : "";
  });
}

// Header values undici can send: visible ASCII and Latin-1, no surrounding whitespace.
const headerChar = fc
  .oneof(fc.integer({ min: 0x21, max: 0x7e }), fc.integer({ min: 0xa1, max: 0xff }))
  .map((c) => String.fromCharCode(c));
const headerText = fc.string({ unit: headerChar, minLength: 1, maxLength: 60 });

function credentialArb(fixture: Fixture, session: (keyName: FixtureKey) => string): fc.Arbitrary<Credential> {
  const keyNames = Object.keys(fixture.keys) as FixtureKey[];
  const flip = (key: string, at: number) => {
    const i = 3 + (at % (key.length - 3));
    return key.slice(0, i) + (key[i] === "A" ? "B" : "A") + key.slice(i + 1);
  };
  const validToken = session("costAlpha");
  const [payload, signature] = validToken.split(".");
  const forgedPayload = Buffer.from(JSON.stringify({ k: fixture.keyIds.platformCost, exp: 4_000_000_000 })).toString(
    "base64url",
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...keyNames).map((name): Credential => ({ kind: "key", name })) },
    { weight: 1, arbitrary: fc.constant<Credential>({ kind: "none" }) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            "Bearer",
            "Bearer ",
            "Bearer  ",
            "bearer",
            "Basic dXNlcjpwYXNz",
            "Token abc",
            "Bearer null",
            "Bearer undefined",
            "Bearer ck_",
            `Bearer ${fixture.keys.readAlpha} ${fixture.keys.costAlpha}`,
            `Bearer ${fixture.keys.readAlpha}x`,
            `Bearer ${fixture.keys.readAlpha.slice(0, -1)}`,
            `Bearer ${fixture.keys.readAlpha.toUpperCase()}`,
            `Bearer ${"A".repeat(4000)}`,
            `Bearer ${fixture.keys.revokedAlpha}`,
          ),
          fc.integer({ min: 0, max: 1000 }).map((at) => `Bearer ${flip(fixture.keys.costAlpha, at)}`),
          headerText.map((t) => `Bearer ${t}`),
          headerText,
        )
        .map((authorization): Credential => ({ kind: "raw", authorization, label: authorization.slice(0, 40) })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            { cookie: `cb_session=${session("readAlpha")}`, cost: false, valid: true },
            { cookie: `cb_session=${validToken}`, cost: true, valid: true },
            // Valid only over https (X-Forwarded-Proto), as cb_session only over plain http: see `refused`.
            { cookie: `__Host-cb_session=${validToken}`, cost: true, valid: true },
            { cookie: `cb_session=${forgedPayload}.${signature}`, cost: false, valid: false },
            { cookie: `cb_session=${payload}.${signature.slice(0, -2)}AA`, cost: false, valid: false },
            { cookie: `cb_session=${payload}`, cost: false, valid: false },
            { cookie: `cb_session=.${signature}`, cost: false, valid: false },
            { cookie: `cb_session=${session("revokedAlpha")}`, cost: false, valid: false },
            { cookie: `cb_session=${"x".repeat(3000)}.${"y".repeat(43)}`, cost: false, valid: false },
            { cookie: `cb_session=%ZZ%${payload}`, cost: false, valid: false },
            { cookie: `cb_session=; cb_session=${validToken}`, cost: true, valid: false },
          ),
          headerText.map((t) => ({ cookie: `cb_session=${t}`, cost: false, valid: false })),
          headerText.map((t) => ({ cookie: `__Host-cb_session=${t}.${signature}`, cost: false, valid: false })),
        )
        .map(({ cookie, cost, valid }): Credential => ({
          kind: "cookie",
          cookie,
          cost,
          valid,
          label: cookie.slice(0, 40),
        })),
    },
  );
}

function extraHeadersArb(): fc.Arbitrary<Record<string, string>> {
  const entry = fc.oneof(
    fc.tuple(
      fc.constant("x-middleware-subrequest"),
      fc.constantFrom(
        "middleware:middleware:middleware:middleware:middleware",
        "proxy:proxy:proxy:proxy:proxy",
        "src/middleware",
      ),
    ),
    fc.tuple(fc.constant("x-request-id"), headerText),
    fc.tuple(fc.constant("accept"), fc.constantFrom("text/html", "application/xml", "*/*", "application/problem+json")),
    fc.tuple(fc.constant("x-forwarded-proto"), fc.constantFrom("https", "gopher", "https, http")),
    fc.tuple(fc.constant("x-forwarded-host"), headerText),
    fc.tuple(fc.constant("origin"), fc.constantFrom("https://evil.example", "null")),
    fc.tuple(fc.constant("accept-encoding"), fc.constantFrom("gzip", "br", "identity;q=0", "x")),
    fc.tuple(fc.constant("range"), fc.constantFrom("bytes=0-10", "bytes=-1")),
  );
  return fc.array(entry, { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
}

// ---------- bodies for POST /v1/cdrs ----------

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MIN_VALUE, 128, 99999, -0),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

function bodyArb(fixture: Fixture, cdrFields: string[]): fc.Arbitrary<{ contentType: string | null; text: string }> {
  const groups = [fixture.alphaId, fixture.bravoId, "bg_unknown", null];
  // A small uuid pool, so replays (200) and same-uuid-other-content (conflict) both happen.
  const baseCdr = fc
    .tuple(
      fc.integer({ min: 0, max: 30 }),
      fc.constantFrom(...groups),
      fc.constantFrom(fixture.supplierId, null, "sup_unknown"),
    )
    .map(
      ([i, group, supplier]) =>
        ({ ...makeCdr("fuzz", i, group ?? fixture.alphaId, supplier), billingGroupId: group }) as Record<
          string,
          unknown
        >,
    );
  const mutated = fc
    .tuple(
      baseCdr,
      fc.array(fc.tuple(fc.constantFrom(...cdrFields, "cdrs", "variables", "__proto__", "constructor"), hostileJson), {
        maxLength: 3,
      }),
      fc.array(fc.constantFrom(...cdrFields), { maxLength: 2 }),
    )
    .map(([cdr, sets, deletes]) => {
      const out: Record<string, unknown> = { ...cdr };
      for (const [k, v] of sets)
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      for (const k of deletes) delete out[k];
      return out;
    });
  const freeswitch = fc.record({
    variables: fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          "uuid",
          "direction",
          "caller_id_number",
          "destination_number",
          "start_epoch",
          "answer_epoch",
          "end_epoch",
          "billsec",
          "hangup_cause",
          "accountcode",
        ),
        hostileJson,
      ),
      fc.constant({
        uuid: "fs-1",
        direction: "outbound",
        destination_number: "442071234567",
        start_epoch: "1767225600",
        end_epoch: "1767225660",
        accountcode: "alpha-ac",
      }),
      hostileJson,
    ),
  });
  const jsonBody = fc.oneof(
    { weight: 4, arbitrary: mutated },
    { weight: 2, arbitrary: fc.array(mutated, { minLength: 0, maxLength: 4 }).map((cdrs) => ({ cdrs })) },
    { weight: 1, arbitrary: freeswitch },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: hostileJson.map((cdrs) => ({ cdrs })) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1001, max: 1003 })
        .chain((n) => mutated.map((c) => ({ cdrs: Array.from({ length: n }, () => c) }))),
    },
  );
  const text = fc.oneof(
    { weight: 8, arbitrary: jsonBody.map((v) => JSON.stringify(v) ?? "null") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        "{",
        '{"uuid":',
        "nul",
        "\u0000",
        "[".repeat(5000) + "]".repeat(5000),
        '{"a":'.repeat(3000) + "1" + "}".repeat(3000),
        '{"uuid":"x","uuid":"y"}',
        '{"cdrs":[1,2,3]}',
        "\ufeff{}",
        '{"startTime": 1e999999}',
        '{"q850Cause": 123456789012345678901234567890}',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        null,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin1",
        "application/cdr+json",
        "APPLICATION/JSON",
        "application/jsonx",
      ),
    },
  );
  return fc.tuple(contentType, text).map(([ct, t]) => ({ contentType: ct, text: t }));
}

// ---------- known inputs ----------

/**
 * Requests that once answered 500 on both engines: run first for their operation, through the same checks, on
 * every run (fast-check `examples`), whatever the seed draws. A date rounded to whole hours or days past 9999, a
 * zone Node's Intl knows and the database does not, a NUL in a query parameter and in a body field.
 */
const KNOWN_INPUTS: { method: string; path: string; query: string; key: FixtureKey; body?: Record<string, unknown> }[] =
  [
    { method: "GET", path: "/v1/usage", query: "?startTime[gte]=9999-12-31T23:00:01Z", key: "platformCost" },
    { method: "GET", path: "/v1/usage", query: "?startTime[lte]=9999-12-31T23:59:59.999Z", key: "readAlpha" },
    { method: "GET", path: "/v1/usage", query: "?timeZone=US/Pacific-New", key: "platformCost" },
    { method: "GET", path: "/v1/usage", query: "?account=%00", key: "platformCost" },
    {
      method: "POST",
      path: "/v1/authorizations",
      query: "",
      key: "ingestPlatform",
      body: { uuid: "fuzz-known-nul", destination: "442071234567", billingGroupId: "\u0000" },
    },
  ];

type KnownInput = (typeof KNOWN_INPUTS)[number] & { pathValues?: Record<string, string> };

/**
 * Malformed ids and amounts that answered 500 (issue 28): a NUL in a path id, for a platform caller and a customer's
 * alike, and in the `account` filter and a thresholds body; a top-up past what a bigint balance holds. A path value
 * `{alpha}` is the fixture's group alpha.
 */
const MALFORMED_ID_INPUTS: KnownInput[] = [
  ...(["alertsPlatform", "alertsAlpha"] as const).flatMap((key): KnownInput[] => [
    { method: "GET", path: "/v1/webhook-endpoints/{id}", query: "", key, pathValues: { id: "\u0000" } },
    {
      method: "PATCH",
      path: "/v1/webhook-endpoints/{id}",
      query: "",
      key,
      pathValues: { id: "we_\u0000" },
      body: { disabled: true },
    },
    { method: "DELETE", path: "/v1/webhook-endpoints/{id}", query: "", key, pathValues: { id: "\u0000" } },
    { method: "POST", path: "/v1/webhook-endpoints/{id}/test", query: "", key, pathValues: { id: "\u0000" } },
    { method: "GET", path: "/v1/webhook-endpoints/{id}/deliveries", query: "", key, pathValues: { id: "\u0000" } },
    {
      method: "POST",
      path: "/v1/webhook-endpoints/{id}/deliveries/{eventId}/resend",
      query: "",
      key,
      pathValues: { id: "\u0000", eventId: "msg_\u0000" },
    },
  ]),
  ...["/v1/accounts", "/v1/suppliers"].flatMap((owner): KnownInput[] =>
    [
      ["GET", `${owner}/{id}/rate-decks`],
      ["POST", `${owner}/{id}/rate-decks`],
      ["GET", `${owner}/{id}/rate-decks/current`],
    ].map(([method, path]) => ({
      method,
      path,
      query: "",
      key: "ratesPlatform" as const,
      pathValues: { id: "\u0000" },
    })),
  ),
  { method: "GET", path: "/v1/webhook-endpoints", query: "?account=%00", key: "alertsPlatform" },
  { method: "GET", path: "/v1/alert-thresholds", query: "?account=%00", key: "alertsPlatform" },
  {
    method: "PUT",
    path: "/v1/alert-thresholds",
    query: "",
    key: "alertsPlatform",
    body: { billingGroupId: "\u0000", thresholds: ["10.00"] },
  },
  {
    method: "POST",
    path: "/v1/accounts/{id}/top-ups",
    query: "",
    key: "provisionPlatform",
    pathValues: { id: "{alpha}" },
    body: { amount: "9223372036854.775807" },
  },
];

const ALL_KNOWN_INPUTS: KnownInput[] = [...KNOWN_INPUTS, ...MALFORMED_ID_INPUTS];

function knownInputsOf(op: Operation, fixture: Fixture): [FuzzRequest][] {
  return ALL_KNOWN_INPUTS.filter((k) => k.method === op.method && k.path === op.path).map((k) => [
    {
      op,
      pathValues: Object.fromEntries(
        Object.entries(k.pathValues ?? {}).map(([name, v]) => [name, v === "{alpha}" ? fixture.alphaId : v]),
      ),
      query: k.query,
      credential: { kind: "key", name: k.key },
      extraHeaders: {},
      body: k.body ? { contentType: "application/json", text: JSON.stringify(k.body) } : undefined,
    },
  ]);
}

// ---------- the test ----------

function operationsOf(doc: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const out: Operation[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path: p,
        parameters: (op.parameters as Operation["parameters"]) ?? [],
        hasBody: op.requestBody !== undefined,
        statuses: new Set(Object.keys(op.responses as object).map(Number)),
        scope: op["x-scope"] as string | undefined,
      });
    }
  }
  return out;
}

/** /v1 routes as files under app/v1, as OpenAPI paths ("[id]" -> "{id}"). */
function routeFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // A catch-all (`[...x]`, `[[...x]]`) answers unknown paths; it is not an operation.
        if (!entry.name.startsWith("[...") && !entry.name.startsWith("[[...")) walk(full);
      } else if (entry.name === "route.ts")
        out.push(`/${path.relative(path.join(ROOT, "app"), path.dirname(full)).replace(/\[(\w+)\]/g, "{$1}")}`);
    }
  };
  walk(path.join(ROOT, "app/v1"));
  return out.sort();
}

function decodable(url: string): boolean {
  try {
    decodeURIComponent(url.split("?")[0]);
    return true;
  } catch {
    return false;
  }
}

function leaks(res: HttpResult, sentText: string): string | null {
  const patterns: [RegExp, string][] = [
    [/\n\s+at .+:\d+:\d+/, "stack trace"],
    [/node_modules|\.next\/server|webpack|turbopack/i, "server path"],
    [
      /syntax error at or near|violates .* constraint|duplicate key value|relation "\w+"|column "\w+"|invalid input syntax for type/i,
      "SQL error",
    ],
    [/\bSELECT\b[\s\S]+\bFROM\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b/i, "SQL text"],
    [/PGlite|drizzle|ECONNREFUSED|pg_catalog/i, "internals"],
  ];
  for (const [re, what] of patterns) if (re.test(res.text) && !re.test(sentText)) return what;
  return null;
}

function costLeak(res: HttpResult): string | null {
  if (res.status >= 300) return null;
  if ((res.headers.get("content-type") ?? "").startsWith("text/csv")) {
    const header = res.text.split("\n", 1)[0];
    const found = COST_FIELDS.filter((f) => header.split(",").includes(f));
    return found.length ? `CSV columns ${found.join(", ")}` : null;
  }
  const keys = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        keys.add(k);
        walk(x);
      }
    }
  };
  walk(res.json);
  const found = COST_FIELDS.filter((f) => keys.has(f));
  return found.length ? `fields ${found.join(", ")}` : null;
}

describe.each(ENGINES)("fuzzing every /v1 operation of the OpenAPI document on %s", (engine) => {
  let store: Store;
  let server: AppServer;
  let fixture: Fixture;
  let operations: Operation[];
  const cursors: string[] = [];
  const sessionTokens = new Map<FixtureKey, string>();
  const stats = { requests: 0, byStatus: new Map<number, number>(), transport: 0 };

  beforeAll(async () => {
    store = await Store.create(engine, "fuzz");
    process.env.SESSION_SECRET = SESSION_SECRET;
    fixture = await store.withDb(async (db) => {
      const seeded = await seedFixture(db, 60);
      // Server-side sessions: a valid cookie names a session row (revokedAlpha's is refused with its key).
      for (const name of ["readAlpha", "costAlpha", "revokedAlpha"] as const)
        sessionTokens.set(name, (await createPortalSession(db, seeded.keyIds[name])).token);
      return seeded;
    });
    // The fuzzer is a trusted proxy (its X-Forwarded-Host/-Proto are read: `refused` below relies on it) that sends
    // thousands of refused credentials from one address, which the limit per address would answer with 429.
    server = await AppServer.start(store, {
      env: { RATE_LIMIT_RPS: "0", SESSION_SECRET, TRUSTED_PROXIES: "127.0.0.1", AUTH_FAILURES_PER_MINUTE: "0" },
    });
    const doc = await http(server.baseUrl, "/v1/openapi.json");
    expect(doc.status).toBe(200);
    operations = operationsOf(doc.json as never).filter((op) => op.path !== "/v1/openapi.json");
    // Real cursors, to fuzz around (tampered, reused with other filters).
    for (const q of ["?pageSize=5", "?pageSize=3&direction=outbound", "?pageSize=2&to=44"]) {
      const page = await http(server.baseUrl, `/v1/calls${q}`, {
        headers: { authorization: `Bearer ${fixture.keys.platformCost}` },
      });
      const next = (page.json as { nextPageUrl: string | null }).nextPageUrl;
      const cursor = next ? new URL(next).searchParams.get("cursor") : null;
      if (cursor)
        cursors.push(
          cursor,
          cursor.slice(0, -1),
          `${cursor}A`,
          cursor.replace(/^./, (c) => (c === "A" ? "B" : "A")),
        );
    }
    expect(cursors.length).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
    const statuses = [...stats.byStatus.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}:${n}`)
      .join(" ");
    console.log(
      `[fuzz ${engine}] ${stats.requests} requests over ${operations?.length} operations (${statuses}); ${stats.transport} answered by the HTTP parser`,
    );
  });

  it("documents every /v1 route file", () => {
    const documented = new Set(operations.map((op) => op.path));
    expect(routeFiles().filter((p) => p !== "/v1/openapi.json" && !documented.has(p))).toEqual([]);
    // Every known input still names an operation, so none is silently skipped.
    expect(
      ALL_KNOWN_INPUTS.filter((k) => !operations.some((op) => op.method === k.method && op.path === k.path)),
    ).toEqual([]);
  });

  it("answers hostile requests with documented statuses, problem+json errors, no leaks and no cost fields without calls:read_cost", async () => {
    const sessionFor = (name: FixtureKey) => {
      const token = sessionTokens.get(name);
      if (!token) throw new Error(`no session opened for ${name}`);
      return token;
    };
    const nativeCdrFields = [
      "uuid",
      "direction",
      "from",
      "to",
      "startTime",
      "answerTime",
      "endTime",
      "hangupCause",
      "q850Cause",
      "pdd",
      "readCodec",
      "writeCodec",
      "recordingUrl",
      "accountcode",
      "networkAddr",
      "billingGroupId",
      "supplierId",
      "gateway",
    ];
    const seed = testSeed();
    // Every distinct defect is collected (by operation, status and kind) so one run reports them all.
    const failures = new Map<string, string>();
    const collect = async (req: FuzzRequest, run: () => Promise<void>): Promise<void> => {
      try {
        await run();
      } catch (e) {
        const message = (e as Error).message;
        const status = /-> (\d{3})/.exec(message)?.[1] ?? "-";
        const key = `${req.op.method} ${req.op.path} ${status} ${message.split(":")[0].slice(0, 40)}`;
        if (!failures.has(key) && failures.size < 30) failures.set(key, message.slice(0, 1500));
      }
    };
    for (const op of operations) {
      const pathParams = op.parameters.filter((p) => p.in === "path");
      const pathArb = fc.tuple(
        ...pathParams.map((p) =>
          fc.oneof(
            { weight: 3, arbitrary: validValue(p.schema, p.name, fixture, cursors) },
            { weight: 3, arbitrary: hostileText.filter((v) => v.length > 0) },
            {
              weight: 1,
              arbitrary: fc.constantFrom("..", ".", "%2e%2e", "%2F", "1%00", "1;1", "1 OR 1=1", "0001", "1e3", "-1"),
            },
          ),
        ),
      );
      const requestArb: fc.Arbitrary<FuzzRequest> = fc
        .tuple(
          pathArb,
          queryArb(op, fixture, cursors),
          credentialArb(fixture, sessionFor),
          extraHeadersArb(),
          op.hasBody ? bodyArb(fixture, nativeCdrFields).map((b) => b as FuzzRequest["body"]) : fc.constant(undefined),
        )
        .map(([pathValues, query, credential, extraHeaders, body]) => ({
          op,
          pathValues: Object.fromEntries(pathParams.map((p, i) => [p.name, pathValues[i]])),
          query,
          credential,
          extraHeaders,
          body,
        }));

      await fc.assert(
        fc.asyncProperty(requestArb, (req) =>
          collect(req, async () => {
            const rawPath = req.op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
              const v = req.pathValues[name];
              return /^(\.\.?|%[0-9A-F]{2}.*|1%00)$/i.test(v) ? v : encode(v);
            });
            const headers: Record<string, string> = { ...req.extraHeaders };
            let hasCost = false;
            if (req.credential.kind === "key") {
              headers.authorization = `Bearer ${fixture.keys[req.credential.name]}`;
              hasCost = COST_KEYS.has(req.credential.name);
            } else if (req.credential.kind === "raw") headers.authorization = req.credential.authorization;
            else if (req.credential.kind === "cookie") {
              headers.cookie = req.credential.cookie;
              hasCost = req.credential.cost;
            }
            if (req.body?.contentType) headers["content-type"] = req.body.contentType;
            const url = `${rawPath}${req.query}`;
            // "..", "%2e%2e" and the like are resolved by the client's URL parser: such a request
            // never reaches this operation, so it says nothing about it.
            const template = new RegExp(`^${req.op.path.replace(/\{\w+\}/g, "[^/]+")}$`);
            if (!template.test(new URL(url, server.baseUrl).pathname)) return;
            const sentText = `${url}\n${JSON.stringify(headers)}\n${req.body?.text ?? ""}`;
            let res: HttpResult;
            try {
              res = await http(server.baseUrl, url, {
                method: req.op.method,
                headers,
                body: req.body?.text,
                timeoutMs: 30_000,
              });
            } catch (e) {
              // A URL or header value fetch itself refuses to send is not a server defect.
              if (e instanceof TypeError && !/fetch failed/.test(e.message)) return;
              throw new Error(
                `${req.op.method} ${url}: ${(e as Error).message} (${String((e as { cause?: unknown }).cause)})`,
              );
            }
            stats.requests++;
            stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
            const where = `${req.op.method} ${url.slice(0, 300)} [${req.credential.kind === "key" ? req.credential.name : req.credential.kind}] -> ${res.status} ${res.text.slice(0, 400)}`;

            if (
              !req.op.statuses.has(res.status) &&
              TRANSPORT_STATUSES.has(res.status) &&
              !(res.headers.get("content-type") ?? "").includes("json")
            ) {
              stats.transport++; // Node's HTTP parser refused it (e.g. URL or headers over 16 KiB): not our answer
              return;
            }
            expect(res.status, where).not.toBe(500);
            expect(res.status, where).toBeLessThan(500);
            expect(req.op.statuses.has(res.status), `undocumented status: ${where}`).toBe(true);
            if (res.status >= 400) {
              expect(problemDefect(res), where).toBeNull();
              const code = (res.json as { code: string }).code as ErrorCode;
              expect(ERROR_TABLE[code]?.status, `code ${code}: ${where}`).toBe(res.status);
              if (res.status === 401) expect(res.headers.get("www-authenticate"), where).toMatch(/^Bearer/);
            }
            expect(leaks(res, sentText), where).toBeNull();
            if (!hasCost) expect(costLeak(res), `cost leak: ${where}`).toBeNull();
            // Credentials that are wrong in any way never get data. Over https only the __Host- cookie
            // counts, over plain http only cb_session.
            // The fuzzer is the one trusted proxy: its value is the last one it wrote (lib/server/forwarded-headers.ts).
            const overHttps = (headers["x-forwarded-proto"] ?? "").split(",").at(-1)?.trim().toLowerCase() === "https";
            const refused =
              req.credential.kind === "none" ||
              (req.credential.kind === "key" && req.credential.name === "revokedAlpha") ||
              (req.credential.kind === "cookie" &&
                (!req.credential.valid || req.credential.cookie.startsWith("__Host-") !== overHttps));
            // (A path that is not valid percent-encoding names nothing: 404 before authentication.)
            if (refused && req.op.scope !== undefined && decodable(url)) {
              expect(res.status, where).toBe(401);
            }
            // A request with a valid key cannot be refused as unauthenticated because of noise elsewhere.
            if (req.credential.kind === "key" && req.credential.name !== "revokedAlpha")
              expect(res.status, where).not.toBe(401);
          }),
        ),
        { numRuns: RUNS_PER_OPERATION, seed: seed + op.path.length, examples: knownInputsOf(op, fixture) },
      );
    }
    expect([...failures.values()], `seed ${seed}`).toEqual([]);
    expect(stats.requests).toBeGreaterThan(operations.length * RUNS_PER_OPERATION * 0.5);
  });
});
