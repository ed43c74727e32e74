import type { Export, ExportStatus } from "./schemas";

/** A row of `exports` as raw queries answer it (int8 may arrive as bigint or number, timestamps as Date or text). */
export interface ExportRow {
  id: string;
  key_id: string;
  billing_group_id: string | null;
  with_cost: boolean;
  filters: string;
  status: ExportStatus;
  rows_estimated: number | bigint | string | null;
  rows_done: number | bigint | string;
  chunks: number;
  cursor: string | null;
  attempts: number;
  error: string | null;
  created_at: Date | string;
  completed_at: Date | string | null;
  expires_at: Date | string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/** The answer of the export API; `download` only when the file is ready. */
export function exportRowToAnswer(row: ExportRow, download: Export["download"]): Export {
  return {
    id: row.id,
    status: row.status,
    filters: JSON.parse(row.filters) as Record<string, string>,
    rowsDone: Number(row.rows_done),
    rowsEstimated: row.rows_estimated === null ? null : Number(row.rows_estimated),
    createdAt: iso(row.created_at),
    completedAt: row.completed_at === null ? null : iso(row.completed_at),
    expiresAt: iso(row.expires_at),
    error: row.error,
    download: row.status === "succeeded" ? download : null,
  };
}
