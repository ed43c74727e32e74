import { NextResponse, type NextRequest } from "next/server";
import { isDevelopment } from "@/lib/config/env";
import { ApiError, problemBody } from "@/lib/errors/api-error";

/**
 * Pages only: a fresh nonce per request for a strict Content-Security-Policy (Next applies the
 * nonce to its own scripts). /v1 and static assets are excluded by the matcher so the API hot
 * path pays nothing here (only /v1 routes with an id segment pass, for undecodableApiPath).
 * Authorization is never decided here: it is checked where data is read.
 */
export function proxy(request: NextRequest) {
  if (request.nextUrl.pathname.startsWith("/v1/")) return undecodableApiPath(request) ?? NextResponse.next();
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const dev = isDevelopment();
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // Style attributes (virtualised rows, widths) need inline styles; scripts are what the nonce guards.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

/**
 * /v1 paths with a dynamic segment only: Next answers a 500 text/plain of its own when a segment is
 * not valid percent-encoding (`/v1/calls/%FF`), before any handler runs. Such a path names nothing:
 * 404 problem+json, like any unknown id (docs/contract.md §3).
 */
function undecodableApiPath(request: NextRequest): Response | null {
  const raw = new URL(request.url).pathname;
  try {
    decodeURIComponent(raw);
    return null;
  } catch {
    const body = problemBody(new ApiError("not_found", "No resource at this path: it is not valid percent-encoding."));
    return new Response(JSON.stringify(body), {
      status: 404,
      headers: {
        "content-type": "application/problem+json",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  }
}

export const config = {
  // Every /v1 path with an {id} segment, and what lies under it (lib/api/proxy-matcher.test.ts checks each operation).
  matcher: [
    "/v1/calls/:id",
    "/v1/accounts/:id/:rest*",
    "/v1/exports/:id/:rest*",
    "/v1/api-keys/:id/:rest*",
    "/v1/invoices/:id/:rest*",
    "/v1/webhook-endpoints/:id/:rest*",
    "/v1/suppliers/:id/:rest*",
    "/v1/rate-decks/:id/:rest*",
    {
      source: "/((?!v1/|v1$|internal/|_next/static|_next/image|favicon.ico|robots.txt).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
