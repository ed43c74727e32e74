import { port, publicOrigin } from "@/lib/config/env";

// Links in mail come from configuration, never from a request: a request's Host (or a forwarded one) is whatever the
// sender typed, and a reset or invitation link pointing at their host hands them the token (issue 28 item 5).
// PUBLIC_BASE_URL when set; else this server on localhost at its own port, which only works on this machine
// (the server says so at start: lib/server/boot.ts).

/** The origin mailed links point at: PUBLIC_BASE_URL, else http://localhost:PORT. */
export function mailOrigin(): string {
  return publicOrigin()?.origin ?? `http://localhost:${port()}`;
}

/** An absolute link for a message, on mailOrigin(). */
export function mailLink(path: string): string {
  return `${mailOrigin()}${path}`;
}
