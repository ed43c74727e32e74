import { randomBytes } from "node:crypto";
import { processSingleton } from "@/lib/runtime/process-singleton";

/** Carries this process's token on every request whose forwarded headers were rewritten (forwarded-headers.ts). */
export const EDGE_HEADER = "x-callbook-edge";

/**
 * A random value per process (processSingleton), so every route bundle sees the same one. A request carrying it went
 * through the rewrite; one without it (taken in before the server finished starting, or a Request built in a test)
 * has raw client headers, which lib/auth/request-origin.ts then ignores. A client cannot send it: it never leaves
 * the process.
 */
export function edgeToken(): string {
  return processSingleton("edgeToken", () => randomBytes(18).toString("base64url"));
}

/** Whether these request headers went through the rewrite: only then do X-Forwarded-* mean anything. */
export function isRewrittenByEdge(headers: { get(name: string): string | null }): boolean {
  return headers.get(EDGE_HEADER) === edgeToken();
}
