"use client";

/** A refused provisioning request: the problem's detail and the fields it names (`amount: must be positive`). */
export class ProvisioningProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string>,
    /** The problem's code (`insufficient_funds`), when the answer had one. */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/**
 * A change through /v1 with the session cookie, as an API client would (the browser adds this site's Origin, which a
 * session's change needs). `idempotencyKey` is the form's: a double submit, or a retry after a lost answer, is one
 * change on the server (lib/idempotency).
 */
export async function sendProvisioning<T>(
  method: "POST" | "PATCH",
  path: string,
  body: unknown,
  idempotencyKey: string,
): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { accept: "application/json", "content-type": "application/json", "Idempotency-Key": idempotencyKey },
    body: JSON.stringify(body),
  });
  if (response.ok) return (await response.json()) as T;
  let detail = `The server answered ${response.status}.`;
  const fields: Record<string, string> = {};
  let code: string | null = null;
  try {
    const problem = (await response.json()) as {
      code?: string;
      detail?: string;
      errors?: { param: string; message: string }[];
    };
    detail = problem.detail ?? detail;
    code = typeof problem.code === "string" ? problem.code : null;
    for (const e of problem.errors ?? []) fields[e.param] = e.message;
  } catch {
    // not a problem body: keep the generic message
  }
  throw new ProvisioningProblem(response.status, detail, fields, code);
}

/** A fresh Idempotency-Key for the next change a form makes. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
