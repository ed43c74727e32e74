/**
 * Long-running operations (file import, demo, rate import) report progress through this; the admin CLI draws it on
 * stderr (stdout stays one JSON object), the server's admin channel streams it as NDJSON lines.
 */
export interface ProgressEvent {
  phase: string;
  done: number;
  total?: number;
}
export type ProgressReporter = (event: ProgressEvent) => void;
