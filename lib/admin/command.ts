import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Db } from "@/lib/db/client";
import type { ProgressReporter } from "@/lib/runtime/progress";

/** Bad input from the operator: printed as a message, exit code 2, nothing changed. */
export class UsageError extends Error {}

export interface AdminCommand {
  /** e.g. "groups create" */
  name: string;
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  run(db: Db, flags: Record<string, string | boolean | undefined>, progress: ProgressReporter): Promise<object>;
}

export function parseFlags(command: AdminCommand, args: string[]): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({ args, options: command.options, strict: true, allowPositionals: false });
    return values as Record<string, string | boolean | undefined>;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\nusage: ${command.usage}`);
  }
}

export function requireFlag(flags: Record<string, string | boolean | undefined>, name: string, usage: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required\nusage: ${usage}`);
  return v.trim();
}

const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/i;

/**
 * An instant flag (--effective-from, --since): ISO 8601 naming its zone, so it means the same
 * instant wherever the operator is, or a date (UTC midnight). Undefined when the flag is absent.
 */
export function instantFlag(
  flags: Record<string, string | boolean | undefined>,
  name: string,
  usage: string,
): Date | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const text = typeof v === "string" ? v.trim() : "";
  const date = new Date(/T/i.test(text) ? text : `${text}T00:00:00Z`);
  if (!INSTANT.test(text) || Number.isNaN(date.getTime()) || date.getTime() < 0) {
    throw new UsageError(
      `--${name} must be an ISO 8601 instant with a zone (2026-12-01T00:00:00Z) or a date (UTC midnight), from 1970 on\nusage: ${usage}`,
    );
  }
  return date;
}
