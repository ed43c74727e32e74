import pg from "pg";
import { describe, expect, it } from "vitest";
import { api, apiServers, scratchCdr } from "./helpers";

// On PostgreSQL ingest runs on the plan-once pool (lib/db/client.ts planOnce; README "Configuration",
// PG_PREPARED_STATEMENTS), whose connections are named
// callbook-plan-once. Checked through the built server, where each route chunk has its own copy of the module: the
// pool must be found whichever copy opened the handle.
const postgres = apiServers().filter((s) => s.engine === "postgres");

describe.each(postgres)("plan-once pool on $engine", (server) => {
  const planOnceConnections = async () => {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'callbook-plan-once'",
      );
      return rows[0].n;
    } finally {
      await client.end();
    }
  };

  it("stores POST /v1/cdrs through connections that reuse one plan per statement", async () => {
    const res = await api(server, "/v1/cdrs", { key: "ingestScratch", method: "POST", body: scratchCdr(server) });
    expect(res.status).toBe(201);
    expect(await planOnceConnections()).toBeGreaterThan(0);
  });
});
