import pg from "pg";
import { cpuSecondsOf } from "./server";

/**
 * CPU seconds of the PostgreSQL backends serving the bench's database (pg_stat_activity by database name), per pid:
 * the database's share of ingest (triggers, index upkeep), which the server's own CPU does not show. PostgreSQL's
 * backends are processes on this machine (loopback), so /proc reads them.
 */
export async function databaseCpu(databaseUrl: string | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (!databaseUrl) return cpu;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    for (const { pid } of rows) cpu.set(pid, cpuSecondsOf(pid));
  } finally {
    await client.end();
  }
  return cpu;
}

/** The CPU the backends used between two readings (a backend that started in between counts from zero). */
export function databaseCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
