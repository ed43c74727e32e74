import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isHttpsForwardedProto } from "@/lib/auth/request-origin";
import { logRequests } from "@/lib/config/env";
import { ApiError, problemBody } from "@/lib/errors/api-error";
import { openApiDocument } from "./openapi";

// Methods a route does not implement must answer 405 problem+json with `Allow` (docs/contract.md §3: a bad
// request never answers 500). Next cannot do it: it answers an unimplemented method of a route
// handler with an empty 405 and no Allow, and it answers TRACE and TRACK with a 500 on every path,
// because it builds a WHATWG Request, which refuses those methods, before any of our code runs.
// So the answer is given at the HTTP server, before Next sees the request (lib/server/http-edge.ts).
// What each /v1 path allows is read from the OpenAPI document, which lib/api/operations.test.ts keeps
// equal to the route files.

/** Methods the Fetch standard forbids: Next would fail to build a Request for them. */
const UNREPRESENTABLE = new Set(["TRACE", "TRACK", "CONNECT"]);
/** What a page (not /v1) answers, for the Allow header of the refusal above. */
const PAGE_METHODS = ["GET", "HEAD", "POST"];

interface PathMethods {
  pattern: RegExp | string;
  allow: string[];
}

let table: PathMethods[] | undefined;

function pathTable(): PathMethods[] {
  if (table) return table;
  const exact: PathMethods[] = [];
  const templated: PathMethods[] = [];
  for (const [path, operations] of Object.entries(openApiDocument().paths)) {
    const methods = new Set(Object.keys(operations).map((m) => m.toUpperCase()));
    if (methods.has("GET")) methods.add("HEAD"); // Next answers HEAD with the GET handler
    methods.add("OPTIONS"); // and OPTIONS with 204 and Allow
    const allow = [...methods].sort();
    if (path.includes("{")) {
      const source = path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]+");
      templated.push({ pattern: new RegExp(`^${source}$`), allow });
    } else exact.push({ pattern: path, allow });
  }
  // Literal paths win over templates (/v1/calls/export is not /v1/calls/{id}), as in Next's router.
  table = [...exact, ...templated];
  return table;
}

/** The methods a /v1 path implements, or undefined for a path no route claims (the catch-all's 404). */
export function allowedMethods(pathname: string): string[] | undefined {
  for (const entry of pathTable()) {
    if (typeof entry.pattern === "string" ? entry.pattern === pathname : entry.pattern.test(pathname))
      return entry.allow;
  }
  return undefined;
}

/** The refusal for a method and path, or null when the request may go on to Next. */
export function methodRefusal(method: string, rawUrl: string): { allow: string[]; detail: string } | null {
  const upper = method.toUpperCase();
  const pathname = rawUrl.split("?", 1)[0].split("#", 1)[0];
  const api = pathname === "/v1" || pathname.startsWith("/v1/");
  const allow = api ? allowedMethods(pathname) : undefined;
  if (UNREPRESENTABLE.has(upper)) {
    const allowed = allow ?? PAGE_METHODS;
    return { allow: allowed, detail: `${upper} is not supported here. Allowed: ${allowed.join(", ")}.` };
  }
  if (!allow || allow.includes(upper)) return null;
  return { allow, detail: `${upper} is not supported on ${pathname.slice(0, 200)}. Allowed: ${allow.join(", ")}.` };
}

/** Answers a method the path does not implement (405 problem+json); false when the request may go on to Next. */
export function refuseUnsupportedMethod(req: IncomingMessage, res: ServerResponse): boolean {
  const refusal = methodRefusal(req.method ?? "", req.url ?? "/");
  if (!refusal) return false;
  const requestId = randomUUID();
  const body = JSON.stringify(problemBody(new ApiError("method_not_allowed", refusal.detail), requestId));
  const headers: Record<string, string> = {
    "content-type": "application/problem+json",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
    allow: refusal.allow.join(", "),
    "x-request-id": requestId,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  };
  const proto = req.headers["x-forwarded-proto"];
  if (isHttpsForwardedProto(Array.isArray(proto) ? proto[0] : proto)) headers["strict-transport-security"] = HSTS;
  res.writeHead(405, headers);
  res.end(req.method === "HEAD" ? undefined : body);
  if (logRequests()) {
    const path = (req.url ?? "").split("?", 1)[0].slice(0, 200);
    process.stdout.write(
      `${JSON.stringify({ time: new Date().toISOString(), requestId, method: req.method, path, status: 405, ms: 0 })}\n`,
    );
  }
  return true;
}

/** The HSTS policy of answers served over https (next.config.mjs sets it on Next's own answers). */
export const HSTS = "max-age=63072000; includeSubDomains";
