import { inject } from "vitest";
import { http } from "@/lib/testing/http-client";
import type { ApiServer } from "./global-setup";
import type { KeyName } from "./fixtures/keys";
import { responseSchemaDrift } from "./response-schema";

export type { ApiServer } from "./global-setup";
export type { GroupName } from "./fixtures/billing";
export type { FixtureCall } from "./fixtures/calls";
export type { KeyName } from "./fixtures/keys";

/**
 * Helpers for HTTP tests. Every test file runs against both servers:
 *
 *   describe.each(apiServers())("calls on $engine", (server) => {
 *     it("...", async () => { const res = await api(server, "/v1/calls", { key: "readA" }); ... });
 *   });
 *
 * Groups `a` and `b` hold fixed fixture calls whose listings are asserted exactly: do not ingest
 * into them. Ingest into group `scratch` (keys `ingestScratch`, `readScratch`).
 */
export function apiServers(): ApiServer[] {
  return inject("apiServers");
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  /** Raw body text (bodies are always read, so the connection is released). */
  text: string;
}

export interface RequestOptions {
  /** Fixture key to send as Bearer; or `authorization` for a raw header value. */
  key?: KeyName;
  authorization?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A request to `server`; `pathOrUrl` is a path ("/v1/calls?...") or an absolute URL (nextPageUrl). A JSON answer that
 * its operation's declared schema refuses fails the test (./response-schema.ts).
 */
export async function api<T = unknown>(
  server: ApiServer,
  pathOrUrl: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${server.keys[options.key]}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const method = options.method ?? (options.body === undefined ? "GET" : "POST");
  const res = await http(server.baseUrl, pathOrUrl, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
    redirect: "follow",
  });
  const drift = responseSchemaDrift(method.toUpperCase(), new URL(pathOrUrl, server.baseUrl), res);
  if (drift) throw new Error(`The answer drifted from the OpenAPI document: ${drift}`);
  return { status: res.status, headers: res.headers, body: (res.json ?? res.text) as T, text: res.text };
}

/** Builds a query string with exact encoding (URLSearchParams would turn spaces into `+`). */
export function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join("&")}` : "";
}

export interface ListedCall {
  id: string;
  startTime: string;
  [field: string]: unknown;
}

export interface CallPageBody {
  calls: ListedCall[];
  nextPageUrl: string | null;
  meta: { pageSize: number; hasMore: boolean };
}

/**
 * Follows nextPageUrl from `firstPath` until hasMore is false and returns every call in order.
 * `between` runs after each page (e.g. to insert calls while paging). Bounded by `maxPages`.
 */
export async function walkPages(
  server: ApiServer,
  firstPath: string,
  key: KeyName,
  options: { maxPages?: number; between?: (pageIndex: number) => Promise<void> } = {},
): Promise<{ calls: ListedCall[]; pages: CallPageBody[] }> {
  const pages: CallPageBody[] = [];
  let next: string | null = firstPath;
  const maxPages = options.maxPages ?? 2_000;
  while (next !== null) {
    if (pages.length >= maxPages) throw new Error(`more than ${maxPages} pages from ${firstPath}`);
    const res: ApiResponse<CallPageBody> = await api<CallPageBody>(server, next, { key });
    if (res.status !== 200) throw new Error(`page ${pages.length} of ${firstPath}: ${res.status} ${res.text}`);
    pages.push(res.body);
    if (res.body.meta.hasMore !== (res.body.nextPageUrl !== null)) throw new Error("hasMore and nextPageUrl disagree");
    next = res.body.nextPageUrl;
    if (next !== null && options.between) await options.between(pages.length - 1);
  }
  return { calls: pages.flatMap((p) => p.calls), pages };
}

/** Every key name found anywhere in a JSON value (for the deep scan of cost fields). */
export function allKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) allKeys(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      allKeys(v, out);
    }
  }
  return out;
}

/** A unique native CDR for POST /v1/cdrs (group `scratch` by default). */
export function scratchCdr(server: ApiServer, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const start = overrides.startTime ? Date.parse(String(overrides.startTime)) : Date.now() - 60_000;
  return {
    uuid: `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`,
    direction: "outbound",
    from: "15550001111",
    to: "442071234567",
    startTime: new Date(start).toISOString(),
    answerTime: new Date(start + 1_000).toISOString(),
    endTime: new Date(start + 31_000).toISOString(),
    hangupCause: "NORMAL_CLEARING",
    billingGroupId: server.groups.scratch.id,
    ...overrides,
  };
}
