import type { ReactNode } from "react";

/**
 * A load that failed, with a way to try again: the one look of every "could not be loaded" in the portal.
 * Only for failures a retry can fix; input the server refuses is said at the form instead.
 */
export function LoadError({
  title,
  detail,
  onRetry,
  compact = false,
  className = "",
}: {
  title: ReactNode;
  detail?: ReactNode;
  onRetry?: () => void;
  compact?: boolean;
  className?: string;
}) {
  return (
    <div
      role="alert"
      className={`flex flex-col items-center gap-2 text-center text-sm ${compact ? "px-4 py-4" : "px-6 py-10"} ${className}`.trim()}
    >
      <p className="font-medium text-red-800">{title}</p>
      {detail ? <p className="max-w-md text-slate-600">{detail}</p> : null}
      {onRetry ? (
        <button
          type="button"
          onClick={onRetry}
          className="mt-1 rounded-lg bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
        >
          Retry
        </button>
      ) : null}
    </div>
  );
}
