import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { queryRows } from "@/lib/db/client";
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

describeOnEngines("idempotent requests", (handle, engine) => {
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
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let runs = 0;
    const slow = async () => {
      runs++;
      started();
      await gate;
      return new Response("{}", { status: 201, headers: { "content-type": "application/json" } });
    };
    const request = { keyId: "key_e", key: "k", fingerprint: "f" };
    const first = runIdempotent(handle().db, request, slow);
    // The first holds the key (its claim committed before it runs), then a second races it.
    await running;
    const second = runIdempotent(handle().db, request, slow);
    if (engine === "postgres") {
      await expect(second).rejects.toMatchObject({
        code: "idempotency_key_in_use",
        headers: { "Retry-After": "1" },
      });
      release();
    } else {
      // PGlite runs one transaction at a time: the second waits for the first's answer and replays it.
      release();
      expect((await second).headers.get("Idempotent-Replayed")).toBe("true");
    }
    expect((await first).status).toBe(201);
    expect((await runIdempotent(handle().db, request, slow)).headers.get("Idempotent-Replayed")).toBe("true");
    expect(runs).toBe(1);
  });

  it("commits the change and its stored answer together: a crash before the answer is kept moves money once", async () => {
    const db = handle().db;
    await db.execute(sql`CREATE TABLE wallet (id int PRIMARY KEY, balance bigint NOT NULL)`);
    await db.execute(sql`INSERT INTO wallet VALUES (1, 0)`);
    // The fault: storing the answer fails, as if the process died between the change and the answer's write.
    await db.execute(sql`CREATE FUNCTION crash_on_store() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.status IS NOT NULL THEN RAISE EXCEPTION 'crashed before the answer was kept'; END IF; RETURN NEW; END $$`);
    await db.execute(sql`CREATE TRIGGER crash_on_store BEFORE UPDATE ON idempotency_keys
      FOR EACH ROW EXECUTE FUNCTION crash_on_store()`);
    const topUp = async (tx: typeof db) => {
      await tx.transaction(async (inner) => {
        await inner.execute(sql`UPDATE wallet SET balance = balance + 5 WHERE id = 1`);
      });
      return new Response('{"ok":true}', { status: 201, headers: { "content-type": "application/json" } });
    };
    const request = { keyId: "key_crash", key: "top-up-1", fingerprint: "f" };
    await expect(runIdempotent(db, request, topUp)).rejects.toThrow();
    // The process is back; a dead process's lock would lapse: make it so, then the client retries.
    await db.execute(sql`DROP TRIGGER crash_on_store ON idempotency_keys`);
    await db.execute(sql`UPDATE idempotency_keys SET locked_until = now() - interval '1 second'
                         WHERE key_id = 'key_crash'`);
    expect((await runIdempotent(db, request, topUp)).status).toBe(201);
    expect((await runIdempotent(db, request, topUp)).headers.get("Idempotent-Replayed")).toBe("true");
    const [wallet] = await queryRows<{ balance: number }>(db, sql`SELECT balance::int AS balance FROM wallet`);
    expect(wallet.balance).toBe(5);
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
