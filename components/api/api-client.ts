"use client";

/** A problem+json answer of /v1, kept whole so the UI can branch on its code. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    /** The fields it names (`errors[]` of a 400 or 422), when it names any. */
    readonly errors: readonly { param: string; message: string }[] = [],
  ) {
    super(detail);
  }
}

// Whether this page is being left (a form post such as Sign out, a link, a reload). A request still in flight then
// may answer 401 because the session just ended: that is no reason to send the person to "your session has ended"
// over the page they are going to. A page restored from the back-forward cache is this page again.
let leaving = false;
if (typeof window !== "undefined") {
  window.addEventListener("beforeunload", () => (leaving = true));
  window.addEventListener("pageshow", () => (leaving = false));
}

/**
 * GET a /v1 resource with the session cookie, as API consumers do with a key. An absolute
 * `nextPageUrl` is reduced to its path, so the browser always asks the origin that holds its cookie.
 */
export async function apiGet<T>(pathOrUrl: string, signal?: AbortSignal): Promise<T> {
  const url = new URL(pathOrUrl, window.location.origin);
  const response = await fetch(`${url.pathname}${url.search}`, {
    credentials: "same-origin",
    headers: { accept: "application/json" },
    signal,
  });
  return answerOf<T>(response);
}

/** POST JSON to a /v1 resource with the session cookie (the browser adds this site's Origin, which a change needs). */
export async function apiPost<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { accept: "application/json", "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return answerOf<T>(response);
}

async function answerOf<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  let code = "internal";
  let detail = `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as { code?: string; detail?: string };
    code = body.code ?? code;
    detail = body.detail ?? detail;
  } catch {
    // not a problem body: keep the generic message
  }
  if (response.status === 401 && !leaving) {
    // Session expired or key revoked: back to sign-in, then here again.
    const here = `${window.location.pathname}${window.location.search}`;
    // A full load on purpose: the sign-in page is server-rendered and drops this page's client state.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.assign(`/sign-in?error=expired&next=${encodeURIComponent(here)}`);
  }
  throw new ApiProblem(response.status, code, detail);
}

/** Retry transient failures only: a 4xx will not get better by asking again. */
export function retryTransient(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiProblem && error.status < 500 && error.status !== 429) return false;
  return failureCount < 2;
}

/**
 * POST/DELETE (or another method) on /v1 with the session cookie and a JSON body: the portal changes state through
 * the API as a program would (the same-origin check of lib/auth/authenticate.ts holds: the browser sends Origin).
 */
export async function apiSend<T>(
  method: "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.ok) return (await response.json()) as T;
  let code = "internal";
  let detail = `The server answered ${response.status}.`;
  let errors: { param: string; message: string }[] = [];
  try {
    const problem = (await response.json()) as {
      code?: string;
      detail?: string;
      errors?: { param: string; message: string }[];
    };
    code = problem.code ?? code;
    detail = problem.detail ?? detail;
    errors = Array.isArray(problem.errors) ? problem.errors : [];
  } catch {
    // not a problem body: keep the generic message
  }
  throw new ApiProblem(response.status, code, detail, errors);
}
