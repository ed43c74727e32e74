import { randomBytes } from "node:crypto";

/** Carries this process's token on every request whose forwarded headers were rewritten (forwarded-headers.ts). */
export const EDGE_HEADER = "x-callbook-edge";

const TOKEN_KEY = Symbol.for("callbook.edgeToken");
type G = typeof globalThis & { [TOKEN_KEY]?: string };

/**
 * A random value per process, on globalThis so every route bundle sees the same one. A request carrying it went
 * through the rewrite; one without it (taken in before the server finished starting, or a Request built in a test)
 * has raw client headers, which lib/auth/request-origin.ts then ignores. A client cannot send it: it never leaves
 * the process.
 */
export function edgeToken(): string {
  const g = globalThis as G;
  return (g[TOKEN_KEY] ??= randomBytes(18).toString("base64url"));
}

/** Whether these request headers went through the rewrite: only then do X-Forwarded-* mean anything. */
export function isRewrittenByEdge(headers: { get(name: string): string | null }): boolean {
  return headers.get(EDGE_HEADER) === edgeToken();
}
