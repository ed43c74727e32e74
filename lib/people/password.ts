import { hash, verify, type Algorithm } from "@node-rs/argon2";

// argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): better-auth's password hooks (lib/people/auth.ts).
// (Algorithm is a const enum, which isolated modules cannot read: its value, typed.)
const ARGON2ID: Algorithm.Argon2id = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$...`) of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether a password matches a stored hash; false (never a throw) for a hash that is not argon2's. */
export async function verifyPassword({ hash: stored, password }: { hash: string; password: string }): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
