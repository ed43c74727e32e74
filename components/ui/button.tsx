/** The primary (brand) action; `compact` is the smaller size used in toolbars and empty states. */
export function primaryButtonClass({
  compact = false,
  block = false,
}: { compact?: boolean; block?: boolean } = {}): string {
  const size = compact ? "px-3 py-1.5" : "px-4 py-2";
  return `${block ? "w-full " : ""}rounded-lg bg-brand-600 ${size} text-sm font-semibold text-white shadow-sm hover:bg-brand-700`;
}
