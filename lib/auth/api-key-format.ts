import { createHash, randomBytes } from "node:crypto";

/**
 * API key format: `ck_` + 32 base62 characters of randomness (~190 bits) + 6 base62 characters of
 * CRC-32 checksum. The checksum lets us refuse a mistyped key without a database lookup and lets
 * secret scanners recognise a leaked one (the idea behind GitHub's token format).
 */
export const KEY_PREFIX = "ck_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base62(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKeySecret(): string {
  const bytes = randomBytes(BODY_LENGTH);
  let body = "";
  // 248 = 4 * 62: rejecting bytes >= 248 keeps every symbol equally likely.
  for (let i = 0; body.length < BODY_LENGTH; i++) {
    const b = i < bytes.length ? bytes[i] : randomBytes(1)[0];
    if (b < 248) body += BASE62[b % 62];
  }
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** Shape and checksum only; no I/O. */
export function isWellFormedApiKey(secret: string): boolean {
  if (!KEY_PATTERN.test(secret)) return false;
  const body = secret.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return secret.slice(KEY_PREFIX.length + BODY_LENGTH) === checksum(body);
}

export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What may be shown of a key after creation: enough to recognise it, useless to an attacker. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, KEY_PREFIX.length + 6)}…`;
}
