import { isAPIError } from "better-auth/api";

/** better-auth's error code (`INVALID_EMAIL_OR_PASSWORD`, `EMAIL_NOT_VERIFIED`, ...), or null for any other error. */
export function authErrorCode(error: unknown): string | null {
  if (!isAPIError(error)) return null;
  const code = (error.body as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : String(error.status);
}
