import { randomBytes } from "node:crypto";

// 32 symbols (Crockford base32, lower case): a byte maps without modulo bias via its low 5 bits.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** Random, prefixed, URL-safe identifiers (Stripe-style): `bg_`, `sup_`, `key_`, `inv_`, `exp_`. 80 bits of entropy. */
export function newId(prefix: "bg" | "sup" | "key" | "inv" | "exp" | "pay"): string {
  let out = "";
  for (const b of randomBytes(16)) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}
