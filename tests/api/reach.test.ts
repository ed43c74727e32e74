import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/operations";
import { api, apiServers, type ApiServer, type GroupName, type KeyName } from "./helpers";

// Reach (lib/auth/reach.ts, docs/contract.md "Reach"): every read operation, asked by every fixture key bound to a
// group (whatever its scopes: a refusal must not leak either), naming its own group's objects and another's, answers
// nothing that holds another group's id. The platform's keys are walked too, to show the needles are findable.

/** The group of each fixture key (tests/api/fixtures.ts); null: a platform key. The revoked key is left out. */
const KEY_GROUPS: Partial<Record<KeyName, GroupName | null>> = {
  readA: "a",
  costA: "a",
  ingestA: "a",
  auditA: "a",
  keysA: "a",
  keysReadA: "a",
  invoicesA: "a",
  readB: "b",
  costB: "b",
  auditB: "b",
  keysB: "b",
  boundProvision: "c",
  alertsC: "c",
  alertsReadC: "c",
  boundRates: "c",
  readScratch: "scratch",
  ingestScratch: "scratch",
  readZones: "zones",
  costZones: "zones",
  alertsZones: "zones",
  readDecks: "decks",
  platformRead: null,
  platformCost: null,
  platformAudit: null,
  platformKeys: null,
  platformAlerts: null,
  platformRates: null,
  platformProvision: null,
};

const READS = OPERATIONS.filter((op) => op.method === "GET" && op.scope !== null);

interface Found {
  id: string;
  billingGroupId: string | null;
}

/** Every object with an `id` and a `billingGroupId` in a JSON answer. */
function objectsIn(value: unknown, out: Found[] = []): Found[] {
  if (Array.isArray(value)) for (const v of value) objectsIn(v, out);
  else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o.id === "string" && "billingGroupId" in o)
      out.push({ id: o.id, billingGroupId: (o.billingGroupId as string | null) ?? null });
    for (const v of Object.values(o)) objectsIn(v, out);
  }
  return out;
}

/** Ids of each group's objects for the path parameters, found through the platform's listings. */
async function pathIds(server: ApiServer): Promise<Record<string, Found[]>> {
  const listed = async (path: string, key: KeyName) => {
    const res = await api(server, path, { key });
    return res.status === 200 ? objectsIn(res.body) : [];
  };
  const groups = Object.values(server.groups).map((g) => ({ id: g.id, billingGroupId: g.id }));
  const calls = server.calls.map((c) => ({ id: c.id, billingGroupId: c.billingGroupId }));
  return {
    "/v1/calls/{id}": calls,
    "/v1/accounts/{id}": groups,
    "/v1/invoices/{id}": await listed("/v1/invoices?pageSize=100", "platformRead"),
    "/v1/webhook-endpoints/{id}": await listed("/v1/webhook-endpoints", "platformAlerts"),
    "/v1/suppliers/{id}": [{ id: server.supplierId, billingGroupId: null }],
  };
}

/** The concrete paths of an operation: one per group holding an object its parameter names (else a made-up id). */
function concretePaths(template: string, ids: Record<string, Found[]>): string[] {
  if (!template.includes("{")) return [template];
  const base = Object.keys(ids).find((prefix) => template.startsWith(prefix));
  const candidates = base ? ids[base] : [];
  const oneEach = new Map<string | null, string>();
  for (const f of candidates) if (!oneEach.has(f.billingGroupId)) oneEach.set(f.billingGroupId, f.id);
  const values = oneEach.size > 0 ? [...oneEach.values()] : ["x_nothing"];
  return values.map((v) => template.replace(/\{[^}]+\}/, encodeURIComponent(v)));
}

/** The answer without what echoes the request (a problem's detail and errors), as text to search. */
function answerText(res: { status: number; body: unknown; text: string }): string {
  if (res.status < 400 || !res.body || typeof res.body !== "object") return res.text;
  const rest = { ...(res.body as Record<string, unknown>) };
  delete rest.detail;
  delete rest.errors;
  return JSON.stringify(rest);
}

describe.each(apiServers())("reach on $engine", (server: ApiServer) => {
  it("no read answers a key bound to a group another group's id", { timeout: 120_000 }, async () => {
    const ids = await pathIds(server);
    const groupIds = Object.fromEntries(Object.entries(server.groups).map(([name, g]) => [name, g.id]));
    const leaks: string[] = [];
    let ownSeen = 0;
    const platformSaw = new Set<string>();
    // Four keys at a time: bounded load on a shared machine.
    const queue = Object.entries(KEY_GROUPS);
    const walkKey = async ([key, group]: [string, GroupName | null | undefined]) => {
      if (group === undefined) return;
      for (const op of READS) {
        const queryNames = op.query ? Object.keys(op.query.shape) : [];
        for (const path of concretePaths(op.path, ids)) {
          const namings = [""];
          // Naming another group's account: a bound key gets an empty answer or a refusal, never its rows.
          for (const other of Object.values(groupIds)) {
            const q = ["account", "billingGroupId"].filter((n) => queryNames.includes(n));
            if (q.length > 0) namings.push(q.map((n) => `${n}=${other}`).join("&"));
          }
          for (const naming of namings) {
            const extra = op.path === "/v1/rates" ? "destination=442071234567" : "";
            const qs = [naming, extra].filter(Boolean).join("&");
            const url = qs ? `${path}?${qs}` : path;
            const res = await api(server, url, { key: key as KeyName });
            const text = answerText(res);
            if (group === null) {
              for (const id of Object.values(groupIds)) if (text.includes(id)) platformSaw.add(id);
              continue;
            }
            if (text.includes(groupIds[group])) ownSeen++;
            for (const [name, id] of Object.entries(groupIds)) {
              if (name !== group && text.includes(id)) leaks.push(`${key} ${url} -> ${res.status} holds group ${name}`);
            }
          }
        }
      }
    };
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await walkKey(next);
      }),
    );
    expect(leaks).toEqual([]);
    // The walk reached data: bound keys saw their own group, and the platform's keys every group's id.
    expect(ownSeen).toBeGreaterThan(0);
    expect([...platformSaw].sort()).toEqual(Object.values(groupIds).sort());
  });
});
