import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { dataDir, secretFromEnv } from "./env";

const cache = new Map<string, Buffer>();

/**
 * A server secret from the environment, or generated once and kept in DATA_DIR so that
 * cursors and sessions survive restarts and are shared by every process using that directory.
 */
export function serverSecret(name: "SESSION_SECRET" | "CURSOR_SECRET"): Buffer {
  const cached = cache.get(name);
  if (cached) return cached;
  let secret: Buffer;
  const fromEnv = secretFromEnv(name);
  if (fromEnv !== undefined) {
    secret = Buffer.from(fromEnv, "utf8");
  } else {
    const dir = dataDir();
    const file = path.join(dir, `${name.toLowerCase().replace("_", "-")}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 }); // only the owner may read the secrets
    try {
      // wx: two processes racing both end up reading the first one's secret.
      fs.writeFileSync(file, randomBytes(32).toString("base64url"), { flag: "wx", mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    secret = Buffer.from(fs.readFileSync(file, "utf8").trim(), "utf8");
  }
  cache.set(name, secret);
  return secret;
}
