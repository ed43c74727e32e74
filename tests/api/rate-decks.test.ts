import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import type { DeckDiffJson, DeckImportJson, DeckPage, SupplierJson } from "@/lib/rating/schemas";
import { http, type HttpResult } from "@/lib/testing/http-client";
import { PERSON_PASSWORD } from "./fixtures/people";
import { api, apiServers, query, scratchCdr, type ApiServer, type KeyName } from "./helpers";

// Rate decks and suppliers over /v1 (README "Provisioning", docs/contract.md §17): platform keys and staff sessions
// with rates:write upload decks as CSV (dry run: the diff and margin warnings), list and download them, and manage
// suppliers; every change idempotent with an Idempotency-Key and audited.

interface Problem {
  code: string;
  detail: string;
  errors?: { param: string; message: string }[];
}

function upload<T>(
  server: ApiServer,
  path: string,
  csv: string,
  options: { key?: KeyName; idem?: string; contentType?: string; cookie?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": options.contentType ?? "text/csv" };
  if (options.idem) headers["idempotency-key"] = options.idem;
  if (options.cookie) Object.assign(headers, { cookie: options.cookie, origin: server.baseUrl });
  return api<T>(server, path, {
    key: options.cookie ? undefined : (options.key ?? "platformRates"),
    method: "POST",
    body: csv,
    headers,
  });
}

async function signedIn(server: ApiServer, from: string, email: string): Promise<string> {
  const res: HttpResult = await http(server.baseUrl, "/session", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password: PERSON_PASSWORD, next: "/calls" }).toString(),
    localAddress: from,
  });
  const cookie = /^(cb_session=[^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`no session cookie: ${res.status} ${res.headers.get("location")}`);
  return cookie;
}

const DECK_1 = "prefix,rate,increment,description\n44,0.02,60/60,UK\n4420,0.015,60/60,London\n33,0.05,30/6,France\n";
const DECK_2 = "prefix,rate,increment,description\n44,0.025,60/60,UK\n33,0.05,30/6,France\n49,0.001,1/1,Germany\n";

describe.each(apiServers())("rate decks on $engine", (server) => {
  const newAccount = async () => {
    const res = await api<AccountDetail>(server, "/v1/accounts", {
      key: "platformProvision",
      body: { name: `Decks ${randomUUID().slice(0, 8)}`, currency: "USD" },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  };

  it("imports a deck once per Idempotency-Key, dry-runs the next without writing, lists the history and downloads it", async () => {
    const id = await newAccount();
    const path = `/v1/accounts/${id}/rate-decks`;
    const idem = randomUUID();
    const first = await upload<DeckImportJson>(
      server,
      `${path}${query({ effectiveFrom: "2020-01-01T00:00:00Z" })}`,
      DECK_1,
      {
        idem,
      },
    );
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({
      dryRun: false,
      side: "sell",
      ownerId: id,
      effectiveFrom: "2020-01-01T00:00:00.000Z",
      imported: 3,
    });
    expect(first.headers.get("location")).toBe(`/v1/rate-decks/${first.body.deckId}`);
    // Same key and body: the same answer, nothing imported twice; another body under the key: 409.
    const again = await upload<DeckImportJson>(
      server,
      `${path}${query({ effectiveFrom: "2020-01-01T00:00:00Z" })}`,
      DECK_1,
      {
        idem,
      },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await upload<Problem>(server, `${path}${query({ effectiveFrom: "2020-01-01T00:00:00Z" })}`, DECK_2, {
      idem,
    });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("idempotency_key_reused");
    // Without a key, a second deck at the same instant is refused naming effectiveFrom.
    const clash = await upload<Problem>(server, `${path}${query({ effectiveFrom: "2020-01-01T00:00:00Z" })}`, DECK_2);
    expect(clash.status).toBe(409);
    expect(clash.body.errors?.map((e) => e.param)).toEqual(["effectiveFrom"]);

    // Dry run: the diff against the deck in force at effectiveFrom; nothing written.
    const dry = await upload<DeckDiffJson>(
      server,
      `${path}${query({ effectiveFrom: "2030-06-01T00:00:00Z", dryRun: "true" })}`,
      DECK_2,
    );
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({
      dryRun: true,
      side: "sell",
      effectiveFrom: "2030-06-01T00:00:00.000Z",
      comparedWith: { deckId: first.body.deckId, effectiveFrom: "2020-01-01T00:00:00.000Z" },
      prefixes: 3,
      added: [{ prefix: "49", rate: 0.001, increment: "1/1", description: "Germany", connectFee: null }],
      removed: [{ prefix: "4420", rate: 0.015, description: "London" }],
      changed: [{ prefix: "44", old: { rate: 0.02 }, new: { rate: 0.025 } }],
      unchanged: 1,
    });
    // The fixture supplier buys 44 at 0.004 and 1 at 0.002: 49 at 0.001 has no buy prefix; 44 is well above.
    // A 90 % minimum margin flags 33 (0.05 vs 0.01: 80 %) and 44 (0.025 vs 0.004: 84 %).
    const thin = await upload<DeckDiffJson>(
      server,
      `${path}${query({ effectiveFrom: "2030-06-01T00:00:00Z", dryRun: "true", minMargin: "90" })}`,
      DECK_2,
    );
    const flagged = thin.body.marginWarnings.filter((w) => w.supplierId === server.supplierId);
    expect(flagged.sort((x, y) => x.prefix.localeCompare(y.prefix))).toEqual([
      expect.objectContaining({ prefix: "33", sellRate: 0.05, buyRate: 0.01, marginPercent: 80, reason: "low_margin" }),
      expect.objectContaining({
        prefix: "44",
        sellRate: 0.025,
        buyRate: 0.004,
        marginPercent: 84,
        reason: "low_margin",
      }),
    ]);
    expect(dry.body.marginWarnings.filter((w) => w.supplierId === server.supplierId)).toEqual([]);
    const listed = await api<DeckPage>(server, path, { key: "platformRates" });
    expect(listed.status).toBe(200);
    expect(listed.body.decks).toHaveLength(1);

    const second = await upload<DeckImportJson>(
      server,
      `${path}${query({ effectiveFrom: "2030-06-01T00:00:00Z" })}`,
      DECK_2,
    );
    expect(second.status).toBe(201);
    const history = await api<DeckPage>(server, `${path}${query({ pageSize: 1 })}`, { key: "platformRates" });
    expect(history.body.decks).toEqual([
      {
        id: second.body.deckId,
        effectiveFrom: "2030-06-01T00:00:00.000Z",
        importedAt: expect.any(String),
        importedBy: expect.objectContaining({ type: "api_key", id: server.keyIds.platformRates }),
        rates: 3,
        status: "scheduled",
      },
    ]);
    expect(history.body.meta).toEqual({ pageSize: 1, hasMore: true });
    const older = await api<DeckPage>(server, history.body.nextPageUrl!, { key: "platformRates" });
    expect(older.body.decks).toMatchObject([{ id: first.body.deckId, status: "in_force", rates: 3 }]);
    expect(older.body.meta.hasMore).toBe(false);

    // The deck in force now, and any deck by id, as CSV that imports again as it is.
    const current = await api<string>(server, `${path}/current`, { key: "platformRates" });
    expect(current.status).toBe(200);
    expect(current.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(current.text).toBe(
      "prefix,rate,increment,description,connectFee,minCharge\r\n33,0.05,30/6,France,,\r\n44,0.02,60/60,UK,,\r\n4420,0.015,60/60,London,,\r\n",
    );
    const byId = await api<string>(server, `/v1/rate-decks/${second.body.deckId}`, { key: "platformRates" });
    expect(byId.text).toContain("49,0.001,1/1,Germany,,");
    expect((await api(server, "/v1/rate-decks/999999999", { key: "platformRates" })).status).toBe(404);

    const events = await api<{ events: { action: string; target: { id: string }; actor: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ account: id, pageSize: 50 })}`,
      { key: "platformAudit" },
    );
    expect(events.body.events.filter((e) => e.action === "rate_deck.imported").map((e) => e.target.id)).toEqual([
      second.body.deckId,
      first.body.deckId,
    ]);
  });

  it("names the line and the field of a bad deck, and refuses other media types, bad parameters and huge bodies", async () => {
    const id = await newAccount();
    const path = `/v1/accounts/${id}/rate-decks`;
    const bad = await upload<Problem>(server, path, "prefix,rate,increment\n44,0.02,60/60\n33,cheap,60/60\n");
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("invalid_request_body");
    expect(bad.body.errors).toEqual([{ param: "line 3", message: expect.stringMatching(/^rate: /) }]);
    const dup = await upload<Problem>(server, path, "prefix,rate,increment\n44,0.02,60/60\n44,0.03,60/60\n");
    expect(dup.body.errors?.[0]).toMatchObject({
      param: "line 3",
      message: expect.stringContaining("already on line 2"),
    });
    const json = await upload<Problem>(server, path, '{"prefix":"44"}', { contentType: "application/json" });
    expect(json.status).toBe(422);
    expect(json.body.errors?.[0].param).toBe("(body)");
    const when = await upload<Problem>(server, `${path}?effectiveFrom=tomorrow`, DECK_1);
    expect(when.status).toBe(400);
    expect(new Set(when.body.errors?.map((e) => e.param))).toEqual(new Set(["effectiveFrom"]));
    const dry = await upload<Problem>(server, `${path}?dryRun=yes`, DECK_1);
    expect(dry.body.errors?.map((e) => e.param)).toEqual(["dryRun"]);
    const huge = await upload<Problem>(server, path, `prefix,rate,increment\n${"1,0.01,1/1\n".repeat(600_000)}`);
    expect(huge.status).toBe(413);
    expect((await upload<Problem>(server, `/v1/accounts/bg_nope/rate-decks`, DECK_1)).status).toBe(404);
    // Nothing of that was imported.
    expect((await api<DeckPage>(server, path, { key: "platformRates" })).body.decks).toEqual([]);
  });

  it("answers 403 to keys without the scope and to customers' sessions; a bound key reads its own decks, imports none", async () => {
    const a = server.groups.a.id;
    const c = server.groups.c.id;
    for (const key of ["boundRates", "platformProvision", "platformCost", "costA"] as const) {
      for (const group of [a, c]) {
        if (key === "boundRates") continue;
        const res = await upload<Problem>(server, `/v1/accounts/${group}/rate-decks?dryRun=true`, DECK_1, { key });
        expect(res.status, `${key} ${res.text}`).toBe(403);
        expect(res.body.code).toBe("insufficient_scope");
        expect((await api(server, `/v1/accounts/${group}/rate-decks`, { key })).status, key).toBe(403);
        expect((await api(server, `/v1/accounts/${group}/rate-decks/current`, { key })).status, key).toBe(403);
      }
      expect((await api(server, "/v1/suppliers", { key })).status, key).toBe(403);
      expect((await api(server, `/v1/suppliers/${server.supplierId}/rate-decks`, { key })).status, key).toBe(403);
      expect((await api(server, "/v1/suppliers", { key, body: { name: "Sneaky" } })).status, key).toBe(403);
    }
    // A key bound to c (a customer: no accounts below it, docs/contract.md "Reseller tiers"): its own decks read (what
    // it pays), never re-priced by itself (403 saying why); another account's are absent (404).
    const own = await upload<Problem>(server, `/v1/accounts/${c}/rate-decks`, DECK_1, { key: "boundRates" });
    expect([own.status, own.body.code]).toEqual([403, "insufficient_scope"]);
    expect(own.body.detail).toMatch(/not its own/);
    expect((await api(server, `/v1/accounts/${c}/rate-decks`, { key: "boundRates" })).status).toBe(200);
    const other = await upload<Problem>(server, `/v1/accounts/${a}/rate-decks?dryRun=true`, DECK_1, {
      key: "boundRates",
    });
    expect(other.status).toBe(404);
    expect((await api(server, `/v1/accounts/${a}/rate-decks`, { key: "boundRates" })).status).toBe(404);
    expect((await api(server, `/v1/accounts/${a}/rate-decks/current`, { key: "boundRates" })).status).toBe(404);

    const owner = await signedIn(server, "127.0.3.1", server.people.ownerA);
    const asOwner = await upload<Problem>(server, `/v1/accounts/${a}/rate-decks?dryRun=true`, DECK_1, {
      cookie: owner,
    });
    expect(asOwner.status).toBe(403);
    expect((await http(server.baseUrl, `/v1/accounts/${a}/rate-decks`, { headers: { cookie: owner } })).status).toBe(
      403,
    );
    // A platform viewer has no rates:write either; a platform admin has.
    const viewer = await signedIn(server, "127.0.3.2", server.people.staff);
    expect((await http(server.baseUrl, `/v1/accounts/${a}/rate-decks`, { headers: { cookie: viewer } })).status).toBe(
      403,
    );
    const admin = await signedIn(server, "127.0.3.3", server.people.staffAdmin);
    const list = await http(server.baseUrl, `/v1/accounts/${a}/rate-decks`, { headers: { cookie: admin } });
    expect(list.status).toBe(200);
    const diff = await upload<DeckDiffJson>(server, `/v1/accounts/${a}/rate-decks?dryRun=true`, DECK_1, {
      cookie: admin,
    });
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.ownerId).toBe(a);
  });

  it("a deck effective in the future neither rates today's calls nor answers today's rate lookups", async () => {
    const scratch = server.groups.scratch.id;
    const future = new Date(Date.now() + 86_400_000 * 400);
    future.setUTCMilliseconds(0);
    const imported = await upload<DeckImportJson>(
      server,
      `/v1/accounts/${scratch}/rate-decks${query({ effectiveFrom: future.toISOString() })}`,
      "prefix,rate,increment\n4420,9.99,60/60\n44,9.99,60/60\n",
    );
    expect(imported.status, imported.text).toBe(201);
    const rate = await api<{ sellRate: number; matchedPrefix: string }>(
      server,
      `/v1/rates${query({ destination: "442071234567" })}`,
      { key: "readScratch" },
    );
    expect(rate.body).toMatchObject({ matchedPrefix: "4420", sellRate: 0.012 });
    const call = await api<{ price: number }>(server, "/v1/cdrs", { key: "ingestScratch", body: scratchCdr(server) });
    expect(call.status, call.text).toBe(201);
    expect(call.body.price).toBe(0.012);
    const decks = await api<DeckPage>(server, `/v1/accounts/${scratch}/rate-decks`, { key: "platformRates" });
    expect(decks.body.decks[0]).toMatchObject({ id: imported.body.deckId, status: "scheduled" });
  });

  it("creates, lists and changes suppliers, and uploads their buy decks with a dry run warning of sells below cost", async () => {
    const gateway = `gw-${randomUUID().slice(0, 8)}`;
    const idem = randomUUID();
    const create = () =>
      api<SupplierJson>(server, "/v1/suppliers", {
        key: "platformRates",
        body: { name: "Carrier Two", gatewayName: gateway },
        headers: { "idempotency-key": idem },
      });
    const created = await create();
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "Carrier Two", gatewayName: gateway });
    const replay = await create();
    expect(replay.body).toEqual(created.body);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const list = await api<{ suppliers: SupplierJson[] }>(server, "/v1/suppliers", { key: "platformRates" });
    expect(list.body.suppliers.filter((s) => s.gatewayName === gateway)).toHaveLength(1);

    const taken = await api<Problem>(server, "/v1/suppliers", {
      key: "platformRates",
      body: { name: "Copy", gatewayName: gateway },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.errors?.map((e) => e.param)).toEqual(["gatewayName"]);
    const empty = await api<Problem>(server, "/v1/suppliers", { key: "platformRates", body: { name: " " } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors?.map((e) => e.param)).toEqual(["name"]);
    const renamed = await api<SupplierJson>(server, `/v1/suppliers/${created.body.id}`, {
      key: "platformRates",
      method: "PATCH",
      body: { name: "Carrier 2", gatewayName: null },
    });
    expect(renamed.body).toMatchObject({ id: created.body.id, name: "Carrier 2", gatewayName: null });
    expect(
      (await api(server, "/v1/suppliers/sup_nope", { key: "platformRates", method: "PATCH", body: { name: "x" } }))
        .status,
    ).toBe(404);

    const path = `/v1/suppliers/${created.body.id}/rate-decks`;
    // Group a sells 44 at 0.05 and 4420 at 0.012: a buy rate of 0.02 for 4420 is above that sell rate.
    const dry = await upload<DeckDiffJson>(server, `${path}?dryRun=true`, "prefix,rate,increment\n4420,0.02,1/1\n");
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ side: "buy", comparedWith: null, added: [{ prefix: "4420", rate: 0.02 }] });
    expect(dry.body.marginWarnings.filter((w) => w.billingGroupId === server.groups.a.id)).toEqual([
      expect.objectContaining({ prefix: "4420", sellRate: 0.012, buyRate: 0.02, reason: "below_cost" }),
    ]);
    expect((await api<DeckPage>(server, path, { key: "platformRates" })).body.decks).toEqual([]);
    const imported = await upload<DeckImportJson>(server, path, "prefix,rate,increment\n4420,0.02,1/1\n", {
      idem: randomUUID(),
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ side: "buy", ownerId: created.body.id, imported: 1 });
    const csv = await api<string>(server, `${path}/current`, { key: "platformRates" });
    expect(csv.text).toBe("prefix,rate,increment,description,connectFee,minCharge\r\n4420,0.02,1/1,,,\r\n");
    const events = await api<{ events: { action: string; target: { id: string } }[] }>(
      server,
      `/v1/audit-events${query({ pageSize: 100 })}`,
      { key: "platformAudit" },
    );
    const mine = events.body.events.filter((e) => [created.body.id, imported.body.deckId].includes(e.target.id));
    expect(mine.map((e) => e.action)).toEqual(["rate_deck.imported", "supplier.updated", "supplier.created"]);
  });
});
