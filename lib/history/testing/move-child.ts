// Test helper of move-month.test.ts: moves one month in a process of its own, and dies by SIGKILL right after the step
// named `dieAfter` (none: runs to the end). argv: one JSON object (MoveChildArgs). Prints the result as one JSON line.
import { openDatabase } from "@/lib/db/client";
import { openHistoryStore } from "../history-store";
import { moveMonth, type MoveStep } from "../move-month";

export interface MoveChildArgs {
  databaseUrl: string;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  month: string;
  now: string;
  moveAfterMonths: number;
  batchSize: number;
  dieAfter?: MoveStep;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as MoveChildArgs;
  const handle = await openDatabase({ url: args.databaseUrl });
  const store = openHistoryStore({ url: args.clickhouseUrl, database: args.clickhouseDatabase });
  const result = await moveMonth(handle.db, store, {
    month: new Date(args.month),
    now: new Date(args.now),
    moveAfterMonths: args.moveAfterMonths,
    batchSize: args.batchSize,
    onStep: (step) => {
      if (step === args.dieAfter) process.kill(process.pid, "SIGKILL");
    },
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await store.close();
  await handle.close();
}

void main();
