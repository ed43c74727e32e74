import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { api, apiServers, scratchCdr, type ApiServer } from "./helpers";

// docs/contract.md §5 over HTTP: POST /v1/cdrs is idempotent by uuid, rates and debits in one transaction,
// and answers problem+json naming the field when it stores nothing.

interface Problem {
  code: string;
  status: number;
  errors?: { param: string; message: string }[];
}

const balance = async (server: ApiServer) =>
  (await api<{ balance: number }>(server, "/v1/balances", { key: "readScratch" })).body.balance;
const micros = (n: number) => Math.round(n * 1e6);

describe.each(apiServers())("POST /v1/cdrs on $engine", (server) => {
  it("stores, rates and debits a call once: 201 with the call, then 200 for the replay", async () => {
    const before = await balance(server);
    const cdr = scratchCdr(server); // 30 s to 4420 at 0.012 on 60/60 -> 60 s, 0.012
    const first = await api<{ id: string; price: number; billDuration: number; uuid: string }>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: cdr,
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ uuid: cdr.uuid, price: 0.012, billDuration: 60, currency: "USD" });
    expect(first.headers.get("location")).toBe(`/v1/calls/${first.body.id}`);
    expect(micros(await balance(server))).toBe(micros(before) - 12_000);

    const replay = await api<{ id: string }>(server, "/v1/cdrs", { key: "ingestScratch", body: cdr });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(micros(await balance(server))).toBe(micros(before) - 12_000);

    const stored = await api<{ uuid: string; price: number }>(server, `/v1/calls/${first.body.id}`, {
      key: "readScratch",
    });
    expect(stored.body).toMatchObject({ uuid: cdr.uuid, price: 0.012 });
  });

  it("answers a batch per CDR, and a batch with one malformed CDR with 422 storing nothing", async () => {
    const good = [scratchCdr(server), scratchCdr(server, { to: "999123" })];
    const bad = await api<Problem>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: { cdrs: [...good, scratchCdr(server, { endTime: "not a time" })] },
    });
    expect(bad.status).toBe(422);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    expect(bad.body.errors?.map((e) => e.param)).toEqual(["cdrs[2].endTime"]);

    const ok = await api<{ results: { uuid: string; status: string; rated: boolean }[]; summary: object }>(
      server,
      "/v1/cdrs",
      {
        key: "ingestScratch",
        body: { cdrs: good },
      },
    );
    expect(ok.status, ok.text).toBe(201); // both new: the 422 stored nothing
    expect(ok.body.results.map((r) => [r.uuid, r.status, r.rated])).toEqual([
      [good[0].uuid, "created", true],
      [good[1].uuid, "created", false], // no sell rate: stored unrated, not lost
    ]);
    expect(ok.body.summary).toEqual({ received: 2, created: 2, duplicate: 0, unrated: 1 });
    const again = await api(server, "/v1/cdrs", { key: "ingestScratch", body: { cdrs: good } });
    expect(again.status).toBe(200);
  });

  it("answers 409 for a replay whose content differs", async () => {
    const cdr = scratchCdr(server);
    expect((await api(server, "/v1/cdrs", { key: "ingestScratch", body: cdr })).status).toBe(201);
    const changed = await api<Problem>(server, "/v1/cdrs", { key: "ingestScratch", body: { ...cdr, to: "4420999" } });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: "conflict", errors: [{ param: "to" }] });
  });

  it("keeps uuids per billing group: another group's uuid is a new call of the poster's group, never a 409 describing theirs", async () => {
    const theirs = server.calls.find((c) => c.group === "a")!;
    const stored = (await api(server, `/v1/calls/${theirs.id}`, { key: "readA" })).text;
    // Same uuid as group A's call, content of the scratch group's own call: stored for scratch.
    const mine = scratchCdr(server, { uuid: theirs.uuid, to: theirs.to });
    const res = await api<{ uuid: string; billingGroupId: string; id: string }>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: mine,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ uuid: theirs.uuid, billingGroupId: server.groups.scratch.id });
    expect(res.body.id).not.toBe(theirs.id);
    // Another post of that uuid with other content is compared with scratch's call only.
    const changed = await api<Problem>(server, "/v1/cdrs", { key: "ingestScratch", body: { ...mine, to: "4420999" } });
    expect(changed.status).toBe(409);
    expect(changed.body.errors?.map((e) => e.param)).toEqual(["to"]);
    // Group A's call is untouched.
    expect((await api(server, `/v1/calls/${theirs.id}`, { key: "readA" })).text).toBe(stored);
  });

  it("refuses with 422 naming the field what it cannot store: NUL, lone surrogates, year 0000, a 30-year call", async () => {
    const before = await balance(server);
    const cases: [string, string][] = [
      [JSON.stringify(scratchCdr(server, { to: "4420\u00007" })), "to"],
      [JSON.stringify(scratchCdr(server, { hangupCause: "NORMAL\u0000" })), "hangupCause"],
      [JSON.stringify(scratchCdr(server)).replace(/"from":"[^"]*"/, '"from":"1555\\ud800"'), "from"],
      [JSON.stringify(scratchCdr(server)).replace(/"uuid":"([^"]*)"/, '"uuid":"$1\\udc00"'), "uuid"],
      [
        JSON.stringify(
          scratchCdr(server, { startTime: "0000-01-01T00:00:00Z", answerTime: null, endTime: "0000-01-01T00:01:00Z" }),
        ),
        "startTime",
      ],
      [
        JSON.stringify(
          scratchCdr(server, {
            startTime: "1995-01-01T00:00:00Z",
            answerTime: "1995-01-01T00:00:01Z",
            endTime: new Date(Date.now() - 60_000).toISOString(),
          }),
        ),
        "endTime",
      ],
    ];
    for (const [body, param] of cases) {
      const res = await api<Problem>(server, "/v1/cdrs", { key: "ingestScratch", body });
      expect(res.status, `${param}: ${res.text}`).toBe(422);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(
        res.body.errors?.map((e) => e.param),
        body,
      ).toContain(param);
    }
    expect(micros(await balance(server))).toBe(micros(before));
  });

  it("ingests a FreeSWITCH mod_json_cdr document", async () => {
    const doc = JSON.parse(
      fs.readFileSync(path.join(__dirname, "../../lib/ingest/fixtures/freeswitch-answered.json"), "utf8"),
    ) as {
      variables: Record<string, string>;
    };
    const uuid = `fs-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    doc.variables = { ...doc.variables, uuid, accountcode: "", sip_gateway_name: "" };
    const res = await api<{ uuid: string; to: string; billingGroupId: string }>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: doc,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ uuid, to: "442071838750", billingGroupId: server.groups.scratch.id });
  });

  it("refuses what it cannot store: unknown or foreign group 422, bad JSON 422, over 5 MiB 413, wrong scope 403", async () => {
    const foreign = await api<Problem>(server, "/v1/cdrs", { key: "ingestA", body: scratchCdr(server) });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors?.[0].param).toBe("billingGroupId");
    const unknown = await api<Problem>(server, "/v1/cdrs", {
      key: "ingestPlatform",
      body: { cdrs: [scratchCdr(server), scratchCdr(server, { billingGroupId: "bg_none" })] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors?.[0].param).toBe("cdrs[1].billingGroupId");
    const notJson = await api<Problem>(server, "/v1/cdrs", { key: "ingestScratch", body: "{ not json" });
    expect(notJson.status).toBe(422);
    const huge = await api<Problem>(server, "/v1/cdrs", {
      key: "ingestScratch",
      body: JSON.stringify({ cdrs: [scratchCdr(server)], pad: "x".repeat(5 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
    const scope = await api<Problem>(server, "/v1/cdrs", { key: "readScratch", body: scratchCdr(server) });
    expect(scope.status).toBe(403);
  });
});
