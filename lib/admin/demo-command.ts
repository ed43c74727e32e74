import { DatabaseNotEmptyError, DEFAULT_DEMO_SEED, runDemo } from "@/lib/demo/run-demo";
import { UsageError, type AdminCommand } from "./command";

const usage = "demo [--calls 50000] [--seed N]";

function positiveInt(value: string | boolean | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^\d+$/.test(value.trim()))
    throw new UsageError(`--${name} must be a whole number\nusage: ${usage}`);
  const n = Number(value);
  if (n < 0 || n > max) throw new UsageError(`--${name} must be between 0 and ${max}\nusage: ${usage}`);
  return n;
}

export const demoCommands: AdminCommand[] = [
  {
    name: "demo",
    usage,
    options: { calls: { type: "string" }, seed: { type: "string" } },
    async run(db, flags, progress) {
      try {
        return await runDemo(db, {
          calls: positiveInt(flags.calls, "calls", 50_000, 5_000_000),
          seed: positiveInt(flags.seed, "seed", DEFAULT_DEMO_SEED, 2 ** 32 - 1),
          progress,
        });
      } catch (e) {
        if (e instanceof DatabaseNotEmptyError) throw new UsageError(e.message);
        throw e;
      }
    },
  },
];
