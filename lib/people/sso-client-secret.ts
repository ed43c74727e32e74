import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { serverSecret } from "@/lib/config/secrets";

// An organization's OIDC client secret is kept encrypted at rest: AES-256-GCM under a key derived from
// SESSION_SECRET (so a copy of the database alone does not hold it), never returned by `people sso show`, never
// written to the audit log. Changing SESSION_SECRET makes the stored secrets unreadable: set them again.

const VERSION = "v1";

function key(): Buffer {
  return createHmac("sha256", serverSecret("SESSION_SECRET")).update("sso-client-secret").digest();
}

export function encryptClientSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url")}`;
}

/** The client secret, or an Error when it was sealed under another SESSION_SECRET (or altered). */
export function decryptClientSecret(stored: string): string {
  const [version, body] = stored.split(".", 2);
  if (version !== VERSION || !body) throw new Error("unknown client secret format");
  const raw = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key(), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}
