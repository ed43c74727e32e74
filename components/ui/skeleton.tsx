/** A grey placeholder bar while data loads; size it with `className` (h-*, w-*). */
export function Skeleton({
  className,
  tone = "bg-slate-200",
}: {
  className: string;
  tone?: "bg-slate-200" | "bg-slate-100";
}) {
  return <div className={`${className} animate-pulse rounded ${tone}`} />;
}
