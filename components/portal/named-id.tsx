/**
 * An account's or supplier's name where a person reads, its id on hover (title) for support tickets and the API.
 * An id without a known name (outside the reader's names, or deleted) is shown as it is.
 */
export function NamedId({ id, names, className }: { id: string; names?: Record<string, string>; className?: string }) {
  const name = names?.[id];
  return name ? (
    <span title={id} className={className}>
      {name}
    </span>
  ) : (
    <span className={`font-mono text-xs ${className ?? ""}`}>{id}</span>
  );
}
