import { describe, expect, it } from "vitest";
import { auditEventPageSchema } from "@/lib/audit/schemas";
import { AUDIT_CSV_COLUMNS } from "@/lib/audit/export-csv";
import { api, apiServers, query, type ApiServer, type KeyName } from "./helpers";

// docs/contract.md "Audit events": GET /v1/audit-events pages like GET /v1/calls; a group's key sees its group's
// events only, a platform key all of them (narrowed by `account`); CSV export with the same filters; no path changes
// an event.

interface EventPage {
  events: {
    id: string;
    billingGroupId: string | null;
    action: string;
    target: { id: string };
    actor: { id: string };
  }[];
  nextPageUrl: string | null;
  meta: { pageSize: number; hasMore: boolean };
}

const SEEDED = { action: "fixture.seeded" };

async function walk(server: ApiServer, firstPath: string, key: KeyName): Promise<EventPage[]> {
  const pages: EventPage[] = [];
  let next: string | null = firstPath;
  while (next !== null) {
    if (pages.length > 200) throw new Error(`too many pages from ${firstPath}`);
    const res: Awaited<ReturnType<typeof api<EventPage>>> = await api<EventPage>(server, next, { key });
    if (res.status !== 200) throw new Error(`page ${pages.length} of ${firstPath}: ${res.status} ${res.text}`);
    auditEventPageSchema.parse(res.body);
    expect(res.body.meta.hasMore).toBe(res.body.nextPageUrl !== null);
    pages.push(res.body);
    next = res.body.nextPageUrl;
  }
  return pages;
}

const targets = (pages: EventPage[]) => pages.flatMap((p) => p.events.map((e) => e.target.id));

describe.each(apiServers())("audit events on $engine", (server) => {
  const seeded = (group: "a" | "b" | null | "all") =>
    server.auditEvents.filter((e) => group === "all" || e.group === group).map((e) => e.targetId);

  it("need the scope audit:read, and a key", async () => {
    const scoped = await api(server, "/v1/audit-events", { key: "costA" });
    expect(scoped.status).toBe(403);
    expect(scoped.body).toMatchObject({ code: "insufficient_scope" });
    expect((await api(server, "/v1/audit-events/export", { key: "readA" })).status).toBe(403);
    expect((await api(server, "/v1/audit-events")).status).toBe(401);
  });

  it.each([1, 5, 50])("walk every event of the key's group once, newest first (pageSize %i)", async (pageSize) => {
    for (const [key, group] of [
      ["auditA", "a"],
      ["auditB", "b"],
    ] as const) {
      const pages = await walk(server, `/v1/audit-events${query({ pageSize, ...SEEDED })}`, key);
      expect(targets(pages)).toEqual(seeded(group));
      for (const page of pages)
        expect(page.events.every((e) => e.billingGroupId === server.groups[group].id)).toBe(true);
      for (const page of pages.slice(0, -1)) expect(page.events).toHaveLength(pageSize);
    }
  });

  it("a platform key sees every group's events and the platform's own, and narrows with `account`", async () => {
    expect(
      targets(await walk(server, `/v1/audit-events${query({ pageSize: 7, ...SEEDED })}`, "platformAudit")),
    ).toEqual(seeded("all"));
    const b = await walk(
      server,
      `/v1/audit-events${query({ pageSize: 4, account: server.groups.b.id, ...SEEDED })}`,
      "platformAudit",
    );
    expect(targets(b)).toEqual(seeded("b"));
    // A group's key naming another group gets nothing of it.
    const other = await walk(server, `/v1/audit-events${query({ account: server.groups.b.id })}`, "auditA");
    expect(targets(other)).toEqual([]);
  });

  it("filter by actor, action prefix and time; nextPageUrl carries them", async () => {
    const byActor = await walk(
      server,
      `/v1/audit-events${query({ pageSize: 2, actorId: "key_fixture_x", actorType: "api_key", action: "fixture.*" })}`,
      "auditA",
    );
    const want = server.auditEvents
      .filter((e) => e.group === "a" && e.actorId === "key_fixture_x")
      .map((e) => e.targetId);
    expect(targets(byActor)).toEqual(want);
    expect(byActor[0].nextPageUrl).toContain("actorId=key_fixture_x");
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(targets(await walk(server, `/v1/audit-events${query({ "occurredAt[gte]": future })}`, "auditA"))).toEqual(
      [],
    );
    const past = await walk(
      server,
      `/v1/audit-events${query({ "occurredAt[gte]": "2020-01-01", "occurredAt[lte]": future, ...SEEDED })}`,
      "auditA",
    );
    expect(targets(past)).toEqual(seeded("a"));
  });

  it("refuse bad filters and a cursor of other filters or another key", async () => {
    const bad = await api(server, `/v1/audit-events${query({ actorType: "robot", pageSize: 0 })}`, { key: "auditA" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_parameter" });
    const first = await api<EventPage>(server, `/v1/audit-events${query({ pageSize: 1 })}`, { key: "auditA" });
    const cursor = new URL(first.body.nextPageUrl!).searchParams.get("cursor")!;
    const otherKey = await api(server, `/v1/audit-events${query({ pageSize: 1, cursor })}`, { key: "auditB" });
    expect(otherKey.body).toMatchObject({ code: "invalid_cursor" });
    const otherFilter = await api(server, `/v1/audit-events${query({ pageSize: 1, cursor, ...SEEDED })}`, {
      key: "auditA",
    });
    expect(otherFilter.body).toMatchObject({ code: "invalid_cursor" });
  });

  it("export the same events as CSV", async () => {
    const res = await api(server, `/v1/audit-events/export${query(SEEDED)}`, { key: "auditB" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-events-\d{8}-\d{6}\.csv"$/);
    const lines = res.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(AUDIT_CSV_COLUMNS.join(","));
    const targetColumn = AUDIT_CSV_COLUMNS.indexOf("targetId");
    expect(lines.slice(1).map((line) => line.split(",")[targetColumn])).toEqual(seeded("b"));
  });

  it("have no path that changes or removes an event", async () => {
    for (const method of ["DELETE", "PUT", "PATCH", "POST"]) {
      const res = await api(server, "/v1/audit-events", {
        key: "platformAudit",
        method,
        body: method === "DELETE" ? undefined : {},
      });
      expect(res.status).toBe(405);
    }
    expect(
      targets(await walk(server, `/v1/audit-events${query({ pageSize: 1000, ...SEEDED })}`, "platformAudit")),
    ).toEqual(seeded("all"));
  });
});
