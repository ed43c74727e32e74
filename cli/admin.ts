import path from "node:path";
import { runAdminCommand, usageText } from "@/lib/admin/commands";
import { UsageError } from "@/lib/admin/command";
import type { ProgressEvent } from "@/lib/runtime/progress";
import { databaseUrl, dataDir } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { DataDirBusyError, readLock } from "@/lib/db/data-dir-lock";

// Admin CLI: `npm run admin -- <command>`. stdout carries exactly one JSON object; progress and
// messages go to stderr. Exit codes: 0 ok, 2 bad input, 1 anything else.

function printResult(result: object): void {
  process.stdout.write(`${JSON.stringify(result, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`);
}

let lastDraw = 0;
function drawProgress(event: ProgressEvent): void {
  const now = Date.now();
  const finished = event.total !== undefined && event.done >= event.total;
  if (now - lastDraw < 200 && !finished) return;
  lastDraw = now;
  const width = 30;
  let line: string;
  if (event.total) {
    const ratio = Math.min(1, event.done / event.total);
    const filled = Math.round(ratio * width);
    line = `${event.phase} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${event.done}/${event.total} (${Math.floor(ratio * 100)}%)`;
  } else {
    line = `${event.phase} ${event.done}`;
  }
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}${finished ? "\n" : ""}`);
  else process.stderr.write(`${line}\n`);
}

/** File paths are resolved here: the server may run from another working directory. */
function absolutiseFiles(argv: string[]): string[] {
  return argv.map((arg, i) => (i > 0 && argv[i - 1] === "--file" ? path.resolve(arg) : arg));
}

async function viaServer(port: number, token: string, argv: string[]): Promise<object> {
  const response = await fetch(`http://127.0.0.1:${port}/internal/admin`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-admin-token": token },
    body: JSON.stringify({ argv }),
  });
  if (!response.ok || !response.body)
    throw new Error(`the running server refused the admin command (HTTP ${response.status})`);
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffered.slice(0, nl)) as {
        progress?: ProgressEvent;
        result?: object;
        error?: string;
        usage?: boolean;
      };
      buffered = buffered.slice(nl + 1);
      if (line.progress) drawProgress(line.progress);
      if (line.result) return line.result;
      if (line.error !== undefined) throw line.usage ? new UsageError(line.error) : new Error(line.error);
    }
  }
  throw new Error("the server closed the admin channel without an answer");
}

async function main(): Promise<number> {
  const argv = absolutiseFiles(process.argv.slice(2));
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help") {
    process.stderr.write(`${usageText()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    let result: object;
    const holder = databaseUrl() ? undefined : readLock(dataDir());
    if (holder?.role === "server" && holder.port) {
      result = await viaServer(holder.port, holder.adminToken, argv);
    } else {
      const handle = await getDbHandle({ role: "cli" });
      try {
        result = await runAdminCommand(handle.db, argv, drawProgress);
      } finally {
        await closeDb();
      }
    }
    printResult(result);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    if (e instanceof DataDirBusyError) {
      process.stderr.write(`error: ${e.message} Wait for it to finish, or stop it.\n`);
      return 1;
    }
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
}

main().then((code) => process.exit(code));
