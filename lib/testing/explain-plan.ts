import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "@/lib/db/client";

/** A node of EXPLAIN (FORMAT JSON), with the fields the plan tests read. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  /** With ANALYZE: how many times the node ran (0: never, e.g. a partition pruned at run time). */
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** The plan's nodes from a `QUERY PLAN` value: parsed JSON (node-postgres) or its text. */
export function nodesOfExplain(queryPlan: unknown): PlanNode[] {
  const json = typeof queryPlan === "string" ? JSON.parse(queryPlan) : queryPlan;
  return planNodes((json as { Plan: PlanNode }[])[0].Plan);
}

/** Runs a text statement with its parameters under EXPLAIN (ANALYZE, FORMAT JSON) through a pg or PGlite client. */
export async function explainAnalyzeText(
  client: { query(text: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> },
  text: string,
  params: unknown[],
): Promise<PlanNode[]> {
  const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
  return nodesOfExplain(rows[0]["QUERY PLAN"]);
}

/** The leaf partitions of calls (calls_pYYYYMM and calls_default). */
export async function callPartitionNames(db: Executor): Promise<string[]> {
  const rows = await queryRows<{ part: string }>(
    db,
    sql`SELECT relid::regclass::text AS part FROM pg_partition_tree('calls') WHERE isleaf`,
  );
  return rows.map((r) => r.part);
}

/** The partitions of calls that a plan run under ANALYZE read (run-time pruning leaves the others unexecuted), sorted. */
export function partitionsRead(nodes: PlanNode[], partitions: readonly string[]): string[] {
  const read = nodes.filter(
    (n) => n["Relation Name"] !== undefined && partitions.includes(n["Relation Name"]) && (n["Actual Loops"] ?? 0) > 0,
  );
  return [...new Set(read.map((n) => n["Relation Name"]!))].sort();
}
