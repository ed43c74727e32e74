/**
 * The one `create()` of this process under `key`. Kept on globalThis (as Symbol.for(`callbook.${key}`)), not in a
 * module variable: Next bundles a module into several route chunks, each with its own module variables, and
 * `next dev` reloads modules in the same process, so only globalThis is shared by all of them (one database handle,
 * one cache, one coalescer). The value is made on first use; a mutable holder object lets a caller replace what it
 * holds (e.g. a handle that failed to open).
 */
export function processSingleton<T>(key: string, create: () => T): T {
  const slots = globalThis as unknown as Record<symbol, { value: T } | undefined>;
  const symbol = Symbol.for(`callbook.${key}`);
  return (slots[symbol] ??= { value: create() }).value;
}
