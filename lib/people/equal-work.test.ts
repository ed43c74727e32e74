import { sql } from "drizzle-orm";
import { beforeAll, expect, it, vi } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { queryRows, type Db } from "@/lib/db/client";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { recordingDb } from "@/lib/testing/recording-db";
import { addPerson } from "./add-person";
import { requestPasswordReset, type Later } from "./password-reset";
import { signInPerson } from "./sign-in";

// Whether an email has an account must not show in how long the answer takes (issue 28 item 7: a known address's
// reset request ~20 ms slower, its failed sign-in ~40 ms under load). Timing is noise in a test; the work is not:
// these compare what the request path asks of argon2 and of the database for a known and an unknown address.

const argon2 = vi.hoisted(() => ({ calls: [] as string[] }));
vi.mock("@node-rs/argon2", async (importOriginal) => {
  const real = await importOriginal<typeof import("@node-rs/argon2")>();
  return {
    ...real,
    hash: (...args: Parameters<typeof real.hash>) => (argon2.calls.push("hash"), real.hash(...args)),
    verify: (...args: Parameters<typeof real.verify>) => (argon2.calls.push("verify"), real.verify(...args)),
  };
});

process.env.SESSION_SECRET ??= "people-test-secret";

const headers = new Headers({ host: "portal.test", "user-agent": "vitest" });
const PASSWORD = "correct horse battery";

describeOnEngines("the same work for a known and an unknown email", (handle, engine) => {
  let recording: Awaited<ReturnType<typeof recordingDb>>;
  let db: Db;
  let known: string;
  beforeAll(async () => {
    recording = await recordingDb(handle(), engine);
    db = recording.db;
    const groupId = (await createBillingGroup(db, { name: "Equal", currency: "USD" })).id;
    known = (
      await addPerson(db, {
        email: "known@example.test",
        name: "K",
        password: PASSWORD,
        role: "viewer",
        organization: groupId,
      })
    ).email;
  });

  /** What `run` asked of argon2 and the database (statements as sent, values apart). */
  async function workOf(run: () => Promise<unknown>): Promise<{ argon2: string[]; statements: string[] }> {
    argon2.calls.length = 0;
    const from = recording.log.length;
    await recording.during("request", run);
    return {
      argon2: [...argon2.calls],
      statements: recording.log
        .slice(from)
        .filter((s) => s.phase === "request")
        .map((s) => s.query),
    };
  }

  it("a failed sign-in: one argon2 verification and the same statements, whether or not the email has an account", async () => {
    const wrongPassword = await workOf(() => signInPerson(db, { email: known, password: "not the password" }, headers));
    const unknownEmail = await workOf(() =>
      signInPerson(db, { email: "nobody@example.test", password: "not the password" }, headers),
    );
    expect(wrongPassword.argon2).toEqual(["verify"]);
    expect(unknownEmail).toEqual(wrongPassword);
    // The right password is verified once too (better-auth does not check it again).
    const right = await workOf(() => signInPerson(db, { email: known, password: PASSWORD }, headers));
    expect(right.argon2).toEqual(["verify"]);
  });

  it("a reset request: the request path does the same for any address and writes nothing; the token and mail come after", async () => {
    const later: (() => Promise<void>)[] = [];
    const defer: Later = (task) => void later.push(task);
    const forKnown = await workOf(() => requestPasswordReset(db, known, headers, defer));
    const forUnknown = await workOf(() => requestPasswordReset(db, "nobody@example.test", headers, defer));
    expect(forUnknown).toEqual(forKnown);
    expect(forKnown.statements.filter((q) => /^\s*(insert|update|delete)\b/i.test(q))).toEqual([]);
    const tokens = () =>
      queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM auth_verifications v JOIN users u ON u.id = v.value
          WHERE u.email = ${known} AND v.identifier LIKE 'reset-password:%'`,
      );
    const mails = () => queryRows<{ recipient: string }>(db, sql`SELECT recipient FROM mail_outbox`);
    expect(await tokens()).toEqual([{ n: 0 }]);
    expect(await mails()).toEqual([]);
    expect(later).toHaveLength(2);
    for (const task of later) await task();
    expect(await tokens()).toEqual([{ n: 1 }]);
    expect(await mails()).toEqual([{ recipient: known }]);
  });
});
