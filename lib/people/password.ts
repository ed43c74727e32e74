import { AsyncLocalStorage } from "node:async_hooks";
import { hash, verify, type Algorithm } from "@node-rs/argon2";

// argon2id with OWASP's minimum (19 MiB, 2 passes, 1 lane): better-auth's password hooks (lib/people/auth.ts).
// (Algorithm is a const enum, which isolated modules cannot read: its value, typed.)
const ARGON2ID: Algorithm.Argon2id = 2;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * The hash of a password nobody knows, with OPTIONS' parameters: what an address without a password is checked
 * against, so that it costs the same argon2 verification as a person's (lib/people/sign-in.ts).
 */
export const STAND_IN_HASH =
  "$argon2id$v=19$m=19456,t=2,p=1$LgmIZICNQIy7Be89FE1mKw$67LMa+zh19JB9AOv17RNZHkMQg5jfoJgAK9QE0fgmp8";

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$...`) of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// A pair the caller has just verified: better-auth's sign-in checks it again, which would cost a second argon2.
const checked = new AsyncLocalStorage<{ hash: string; password: string }>();

/** Runs `run` (a better-auth sign-in) knowing that `password` matches `hash`: its own check of that pair is free. */
export function withCheckedPassword<T>(pair: { hash: string; password: string }, run: () => Promise<T>): Promise<T> {
  return checked.run(pair, run);
}

/** Whether a password matches a stored hash; false (never a throw) for a hash that is not argon2's. */
export async function verifyPassword({ hash: stored, password }: { hash: string; password: string }): Promise<boolean> {
  const pair = checked.getStore();
  if (pair && pair.hash === stored && pair.password === password) return true;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
