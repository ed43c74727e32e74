import { randomBytes } from "node:crypto";

/**
 * The id of a row in better-auth's tables: the table's prefix (`usr`, `mem`, `ver`, ...) and 144 random bits. One
 * shape whether better-auth writes the row (lib/people/auth.ts generateId) or the portal does itself.
 */
export function authRowId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString("base64url")}`;
}
