import nodeHttp from "node:http";

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
  /**
   * Sends from this local address, e.g. 127.0.0.2: another loopback address is another client (or a proxy) to the
   * server, which sees it as the TCP peer. Such a request never follows redirects.
   */
  localAddress?: string;
}

/** `pathOrUrl` is a path ("/v1/calls?...") on `baseUrl`, or an absolute URL (a nextPageUrl). */
export async function http(baseUrl: string, pathOrUrl: string, init: HttpInit = {}): Promise<HttpResult> {
  const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl}`;
  if (init.localAddress) return fromAddress(url, init, init.localAddress);
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.headers,
    body: init.body as BodyInit | undefined,
    redirect: init.redirect ?? "manual",
    signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
  });
  return result(res.status, res.headers, await res.text());
}

function result(status: number, headers: Headers, text: string): HttpResult {
  let json: unknown = undefined;
  if ((headers.get("content-type") ?? "").includes("json") && text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status, headers, text, json };
}

/** node:http, which (unlike fetch) can choose the local address. */
function fromAddress(url: string, init: HttpInit, localAddress: string): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = nodeHttp.request(
      url,
      { method: init.method ?? "GET", headers: init.headers, localAddress, timeout: init.timeoutMs ?? 60_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
          }
          resolve(result(res.statusCode ?? 0, headers, Buffer.concat(chunks).toString("utf8")));
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`${init.method ?? "GET"} ${url} timed out`)));
    req.end(init.body);
  });
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
