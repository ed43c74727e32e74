/**
 * The one HTTP client of the HTTP suites (tests/api through its `api` helper, tests/reliability
 * directly): a request to a test server whose body is always read, so the connection is released.
 */
export interface HttpResult {
  status: number;
  headers: Headers;
  /** The raw body. */
  text: string;
  /** The body parsed, when the answer says JSON and parses; else undefined. */
  json: unknown;
}

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  /** "manual" by default: a redirect is an answer to assert, not to follow. */
  redirect?: RequestRedirect;
}

/** `pathOrUrl` is a path ("/v1/calls?...") on `baseUrl`, or an absolute URL (a nextPageUrl). */
export async function http(baseUrl: string, pathOrUrl: string, init: HttpInit = {}): Promise<HttpResult> {
  const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl}`;
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers,
    body: init.body as BodyInit | undefined,
    redirect: init.redirect ?? "manual",
    signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  let json: unknown = undefined;
  if ((res.headers.get("content-type") ?? "").includes("json") && text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
