"use client";

import { useEffect, useState } from "react";
import { formatCount } from "@/lib/portal/format";
import { apiGet, apiPost, ApiProblem } from "../api/api-client";
import { secondaryButtonClass } from "../ui/button";

/** What GET /v1/exports/{id} answers (lib/exports/schemas.ts; that module is server-side). */
interface ExportState {
  id: string;
  status: "queued" | "running" | "succeeded" | "failed";
  rowsDone: number;
  rowsEstimated: number | null;
  error: string | null;
  download: { url: string; expiresAt: string } | null;
}

const POLL_MS = 1_000;

/**
 * "Export in background": POST /v1/exports with the call log's filters (a fresh Idempotency-Key per click, so a
 * double click or a retried request starts one export), then the progress and, when the file is ready, its link
 * (valid for an hour). The export goes on on the server if the page is left.
 */
export function BackgroundExport({ apiQueryText, disabled }: { apiQueryText: string; disabled: boolean }) {
  const [job, setJob] = useState<ExportState | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const running = job !== null && (job.status === "queued" || job.status === "running");
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => {
      apiGet<ExportState>(`/v1/exports/${job.id}`).then(setJob, (e: unknown) =>
        setProblem(e instanceof ApiProblem ? e.detail : "The export's progress could not be read."),
      );
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, job]);

  const start = async () => {
    setStarting(true);
    setProblem(null);
    try {
      const filters = Object.fromEntries(new URLSearchParams(apiQueryText));
      const idempotencyKey = crypto.randomUUID();
      setJob(await apiPost<ExportState>("/v1/exports", { filters }, { "Idempotency-Key": idempotencyKey }));
    } catch (e) {
      setProblem(e instanceof ApiProblem ? e.detail : "The export could not be started.");
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="flex items-center gap-2" data-testid="background-export">
      {job && running ? (
        <span className="flex items-center gap-2 text-sm text-slate-600" role="status" aria-live="polite">
          <progress
            className="w-24"
            aria-label="Export progress"
            max={Math.max(job.rowsEstimated ?? 0, job.rowsDone, 1)}
            value={job.rowsDone}
          />
          Exporting {formatCount(job.rowsDone)}
          {job.rowsEstimated !== null ? ` of ${formatCount(job.rowsEstimated)}` : ""} calls…
        </span>
      ) : null}
      {job?.status === "succeeded" && job.download ? (
        <a
          href={new URL(job.download.url).pathname + new URL(job.download.url).search}
          download
          className="text-sm font-semibold text-brand-700 underline"
        >
          Download CSV ({formatCount(job.rowsDone)} calls; link valid for 1 hour)
        </a>
      ) : null}
      {job?.status === "failed" ? (
        <span className="text-sm text-red-700" role="alert">
          {job.error ?? "The export failed."}
        </span>
      ) : null}
      {problem ? (
        <span className="text-sm text-red-700" role="alert">
          {problem}
        </span>
      ) : null}
      <button
        type="button"
        className={secondaryButtonClass}
        disabled={disabled || starting || running}
        onClick={() => void start()}
      >
        Export in background
      </button>
    </div>
  );
}
