import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { ApiError } from "@/lib/errors/api-error";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import {
  deleteExpiredIdempotencyKeys,
  idempotencyKeyOf,
  requestFingerprint,
  runIdempotent,
} from "./idempotent-request";

const url = new URL("http://localhost/v1/exports");

function counter() {
  let runs = 0;
  const run = async () => {
    runs++;
    return new Response(JSON.stringify({ run: runs }), {
      status: 201,
      headers: { "content-type": "application/json", location: `/v1/things/${runs}`, "x-request-id": `r${runs}` },
    });
  };
  return { run, runs: () => runs };
}

it("fingerprints the canonical request: key order and spacing do not count, method, path, query and body do", () => {
  const a = requestFingerprint("POST", url, '{"b":1,"a":{"y":2,"x":[1,{"q":1,"p":2}]}}');
  expect(requestFingerprint("post", url, '{ "a": {"x": [1, {"p":2,"q":1}], "y": 2}, "b": 1 }')).toBe(a);
  expect(requestFingerprint("POST", url, '{"b":2,"a":{"y":2,"x":[1,{"q":1,"p":2}]}}')).not.toBe(a);
  expect(requestFingerprint("PATCH", url, '{"b":1,"a":{"y":2,"x":[1,{"q":1,"p":2}]}}')).not.toBe(a);
  expect(requestFingerprint("POST", new URL("http://localhost/v1/other"), '{"b":1}')).not.toBe(
    requestFingerprint("POST", url, '{"b":1}'),
  );
  expect(requestFingerprint("POST", new URL("http://localhost/v1/exports?x=1"), "")).not.toBe(
    requestFingerprint("POST", url, ""),
  );
  expect(requestFingerprint("POST", url, "not json")).not.toBe(requestFingerprint("POST", url, "not  json"));
});

it("reads the header, refusing an empty, long or non-ASCII key with 400 naming it", () => {
  const of = (value?: string) =>
    idempotencyKeyOf(new Request(url, { headers: value === undefined ? {} : { "Idempotency-Key": value } }));
  expect(of()).toBeUndefined();
  expect(of("7b1c0c1e-2f5e-4a4e-9b9f-0d5f3b2a1c00")).toBe("7b1c0c1e-2f5e-4a4e-9b9f-0d5f3b2a1c00");
  for (const bad of ["", "x".repeat(256), "has space", "caf\u00e9"]) {
    let caught: unknown;
    try {
      of(bad);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toBe(400);
    expect((caught as ApiError).errors?.[0].param).toBe("Idempotency-Key");
  }
});

describeOnEngines("idempotent requests", (handle) => {
  it("runs once per key and replays status, body and kept headers with Idempotent-Replayed", async () => {
    const { run, runs } = counter();
    const request = { keyId: "key_a", key: "k1", fingerprint: "f1" };
    const first = await runIdempotent(handle().db, request, run);
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await first.json()).toEqual({ run: 1 });
    const again = await runIdempotent(handle().db, request, run);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("location")).toBe("/v1/things/1");
    expect(again.headers.get("x-request-id")).toBeNull();
    expect(await again.json()).toEqual({ run: 1 });
    expect(runs()).toBe(1);
  });

  it("keys are per API key: another key's same idempotency key is another request", async () => {
    const { run, runs } = counter();
    await runIdempotent(handle().db, { keyId: "key_b", key: "shared", fingerprint: "f" }, run);
    const other = await runIdempotent(handle().db, { keyId: "key_c", key: "shared", fingerprint: "f" }, run);
    expect(other.headers.get("Idempotent-Replayed")).toBeNull();
    expect(runs()).toBe(2);
  });

  it("answers 409 idempotency_key_reused for the same key with another request", async () => {
    const { run, runs } = counter();
    await runIdempotent(handle().db, { keyId: "key_d", key: "k", fingerprint: "one" }, run);
    await expect(
      runIdempotent(handle().db, { keyId: "key_d", key: "k", fingerprint: "two" }, run),
    ).rejects.toMatchObject({ code: "idempotency_key_reused", status: 409 });
    expect(runs()).toBe(1);
  });

  it("answers 409 idempotency_key_in_use while the first request runs, and concurrent requests run once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const slow = async () => {
      runs++;
      await gate;
      return new Response("{}", { status: 201, headers: { "content-type": "application/json" } });
    };
    const request = { keyId: "key_e", key: "k", fingerprint: "f" };
    const first = runIdempotent(handle().db, request, slow);
    // Wait until the first holds the key (its row exists), then race a second.
    for (;;) {
      const rows = await handle().db.execute(sql`SELECT 1 FROM idempotency_keys WHERE key_id = 'key_e'`);
      if ((rows as unknown as { rows: unknown[] }).rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await expect(runIdempotent(handle().db, request, slow)).rejects.toMatchObject({
      code: "idempotency_key_in_use",
      headers: { "Retry-After": "1" },
    });
    release();
    expect((await first).status).toBe(201);
    expect((await runIdempotent(handle().db, request, slow)).headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs).toBe(1);
  });

  it("does not keep an answer of 500 or a thrown error: the retry runs again", async () => {
    let runs = 0;
    const failing = async () => {
      runs++;
      return new Response("{}", { status: runs === 1 ? 503 : 200 });
    };
    const request = { keyId: "key_f", key: "k", fingerprint: "f" };
    expect((await runIdempotent(handle().db, request, failing)).status).toBe(503);
    expect((await runIdempotent(handle().db, request, failing)).status).toBe(200);
    const throwing = { keyId: "key_f", key: "k2", fingerprint: "f" };
    await expect(
      runIdempotent(handle().db, throwing, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect((await runIdempotent(handle().db, throwing, failing)).status).toBe(200);
  });

  it("keeps a 4xx answer and replays it", async () => {
    let runs = 0;
    const refusing = async () => {
      runs++;
      return new Response('{"code":"invalid_request_body"}', { status: 422 });
    };
    const request = { keyId: "key_g", key: "k", fingerprint: "f" };
    await runIdempotent(handle().db, request, refusing);
    const replayed = await runIdempotent(handle().db, request, refusing);
    expect(replayed.status).toBe(422);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs).toBe(1);
  });

  it("takes over a lapsed lock (a process died mid-request) and expires keys after 24 hours", async () => {
    const { run, runs } = counter();
    const db = handle().db;
    await db.execute(
      sql`INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, locked_until)
          VALUES ('key_h', 'dead', 'f', now() - interval '1 second')`,
    );
    expect((await runIdempotent(db, { keyId: "key_h", key: "dead", fingerprint: "f" }, run)).status).toBe(201);
    await runIdempotent(db, { keyId: "key_h", key: "old", fingerprint: "f" }, run);
    await db.execute(
      sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key_id = 'key_h' AND idempotency_key = 'old'`,
    );
    // Expired: another request may use the key again, and it runs.
    const reused = await runIdempotent(db, { keyId: "key_h", key: "old", fingerprint: "other" }, run);
    expect(reused.headers.get("Idempotent-Replayed")).toBeNull();
    expect(runs()).toBe(3);
    await db.execute(sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key_id = 'key_h'`);
    expect(await deleteExpiredIdempotencyKeys(db)).toBe(2);
  });
});
