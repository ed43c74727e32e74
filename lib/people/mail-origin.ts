import { AsyncLocalStorage } from "node:async_hooks";

// The origin the portal's mailed links point at: the one the request that causes the mail came to (PUBLIC_BASE_URL
// when set, else the request's own, as lib/auth/request-origin.ts decides). better-auth calls the mail hooks deep
// inside its endpoints, so the origin travels with the call rather than through every signature.
const storage = new AsyncLocalStorage<string>();

export function withMailOrigin<T>(origin: string, run: () => Promise<T>): Promise<T> {
  return storage.run(origin.replace(/\/$/, ""), run);
}

export function mailLink(path: string): string {
  const origin = storage.getStore();
  if (!origin) throw new Error("mailLink called outside withMailOrigin");
  return `${origin}${path}`;
}
