import type { Db } from "@/lib/db/client";
import type { ProgressReporter } from "@/lib/runtime/progress";
import { parseFlags, UsageError, type AdminCommand } from "./command";
import { groupCommands } from "./group-commands";
import { keyCommands } from "./key-commands";
import { ratingCommands } from "./rating-commands";
import { rerateCommands } from "./rerate-command";
import { cdrsImportCommands } from "./cdrs-import-command";
import { demoCommands } from "./demo-command";
import { webhookCommands } from "./webhook-commands";
import { invoiceCommands } from "./invoice-commands";
import { peopleCommands } from "./people-commands";
import { historyCommands } from "./history-commands";

/** Every admin command (docs/contract.md §7). Each module contributes its own. */
export const ADMIN_COMMANDS: AdminCommand[] = [
  ...groupCommands,
  ...keyCommands,
  ...ratingCommands,
  ...rerateCommands,
  ...cdrsImportCommands,
  ...demoCommands,
  ...webhookCommands,
  ...invoiceCommands,
  ...peopleCommands,
  ...historyCommands,
];

export function usageText(): string {
  return ["usage: npm run admin -- <command>", "", ...ADMIN_COMMANDS.map((c) => `  ${c.usage}`)].join("\n");
}

export function findCommand(argv: string[]): { command: AdminCommand; rest: string[] } {
  for (const words of [2, 3, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = ADMIN_COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  throw new UsageError(`unknown command "${argv.slice(0, 2).join(" ")}"\n\n${usageText()}`);
}

export async function runAdminCommand(
  db: Db,
  argv: string[],
  progress: ProgressReporter = () => undefined,
): Promise<object> {
  const { command, rest } = findCommand(argv);
  const flags = parseFlags(command, rest);
  return command.run(db, flags, progress);
}
