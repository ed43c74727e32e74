import type { CallColumnId } from "@/lib/portal/call-columns";
import { ApiProblem } from "../api/api-client";
import { LoadError } from "../ui/load-error";
import { Skeleton } from "../ui/skeleton";
import { COLUMN_LAYOUT } from "./call-columns";
import { navigateFilters } from "./call-filters-bar";
import { ROW_HEIGHT } from "./call-log-window";

/** The call log's states besides its rows: loading placeholders, nothing found, a failed load. */

export function SkeletonRows({ columns, count = 12 }: { columns: CallColumnId[]; count?: number }) {
  return (
    <>
      {Array.from({ length: count }, (_, i) => (
        <tr key={i} aria-hidden data-testid="skeleton-row" style={{ height: ROW_HEIGHT }}>
          {columns.map((c) => (
            <td key={c} className="border-b border-slate-100 px-2.5">
              <Skeleton className={`h-3 ${COLUMN_LAYOUT[c].numeric ? "ml-auto w-12" : "w-3/4"}`} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

export function EmptyState({ filtered }: { filtered: boolean }) {
  return (
    <div className="flex flex-col items-center gap-2 px-6 py-16 text-center" data-testid="empty-state">
      <p className="text-base font-medium text-slate-900">
        {filtered ? "No calls match these filters" : "No calls yet"}
      </p>
      <p className="max-w-sm text-sm text-slate-600">
        {filtered
          ? "Widen the date range or clear a filter to see more calls."
          : "Calls appear here as soon as they complete."}
      </p>
      {filtered ? (
        <button
          type="button"
          onClick={() => navigateFilters({}, "push")}
          className="mt-2 rounded-lg border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

export function LoadErrorState({
  error,
  onRetry,
  compact = false,
}: {
  error: unknown;
  onRetry: () => void;
  compact?: boolean;
}) {
  const detail = error instanceof ApiProblem ? error.detail : "The network request failed.";
  return <LoadError title="Calls could not be loaded" detail={detail} onRetry={onRetry} compact={compact} />;
}
