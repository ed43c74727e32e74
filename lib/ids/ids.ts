import { randomBytes } from "node:crypto";
import { z } from "zod";

// 32 symbols (Crockford base32, lower case): a byte maps without modulo bias via its low 5 bits.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Random, prefixed, URL-safe identifiers (Stripe-style): `bg_`, `sup_`, `key_`, `inv_`, `exp_`. 80 bits of entropy. */
export function newId(prefix: "bg" | "sup" | "key" | "inv" | "exp" | "pay"): string {
  let out = "";
  for (const b of randomBytes(16)) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}

/**
 * The prefixes of the ids a request can name: newId's, a webhook endpoint's (`we_`, lib/alerts/webhooks.ts) and a
 * webhook event's (`msg_`, written by the balance alerts trigger and the test event).
 */
export type IdPrefix = "bg" | "sup" | "key" | "inv" | "exp" | "we" | "msg";

/** Prefix, underscore, then letters, digits, `_` or `-` (what the writers above and the tests' fixtures use). */
const ID_BODY = "[0-9A-Za-z_-]+";
export const MAX_ID_LENGTH = 64;

/**
 * An id a path or query parameter names (docs/contract.md §3): the prefix of its kind and a plain charset, at most 64
 * characters. apiRoute checks path ids against it before the handler runs (404 `not_found`, like an unknown id) and
 * query ids with the rest of the query (400 naming it); text outside it (a NUL, a lone surrogate, control characters)
 * never reaches SQL, where the database refused the statement: a 500 once.
 */
export function idSchema(prefix: IdPrefix, description: string) {
  const shape = new RegExp(`^${prefix}_${ID_BODY}$`);
  return z
    .string()
    .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`)
    .regex(shape, `must be an id of the form ${prefix}_…`)
    .describe(description);
}

/** A query filter naming an id: optional, and empty is the same as absent (as the other filters of /v1 take it). */
export function idFilterSchema(prefix: IdPrefix, description: string) {
  return z
    .string()
    .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`)
    .regex(new RegExp(`^(?:${prefix}_${ID_BODY})?$`), `must be an id of the form ${prefix}_…`)
    .optional()
    .describe(description);
}

/** A row number that names a resource (a call, a rate deck): digits only, within a bigint. */
export function serialIdSchema(description: string) {
  return z
    .string()
    .regex(/^\d{1,18}$/, "must be a number")
    .describe(description);
}
