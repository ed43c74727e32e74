import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { isEmbedded, queryTextColumn } from "./client";

describeOnEngines("queryTextColumn and isEmbedded", (handle, engine) => {
  it("tells the embedded engine from a PostgreSQL pool (the coalescer's lanes and the listing's fast path depend on it)", () => {
    expect(isEmbedded(handle().db)).toBe(engine === "pglite");
  });

  it("answers the first column of every row as text, parameters bound, in order, on either path", async () => {
    const rows = await queryTextColumn(
      handle().db,
      sql`SELECT (x::text || ${"-é\"'"}) AS t, x FROM generate_series(1, 3) AS x ORDER BY x DESC`,
    );
    expect(rows).toEqual(["3-é\"'", "2-é\"'", "1-é\"'"]);
  });

  it("inside a transaction (no direct client) it answers the same through Drizzle", async () => {
    const rows = await handle().db.transaction(async (tx) => {
      expect(isEmbedded(tx)).toBe(false);
      return queryTextColumn(tx, sql`SELECT ${"a"}::text UNION ALL SELECT 'b'`);
    });
    expect(rows).toEqual(["a", "b"]);
  });
});
