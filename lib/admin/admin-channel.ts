import { timingSafeEqual } from "node:crypto";
import { getDbHandle } from "@/lib/db/client";
import type { ProgressEvent } from "@/lib/runtime/progress";
import { UsageError } from "./command";
import { runAdminCommand } from "./commands";

/**
 * The local admin channel: while the server holds the embedded data directory, the CLI sends its
 * command here instead of opening PGlite a second time. The token is in DATA_DIR/pglite.lock
 * (mode 0600), so only a local user who can read the data directory can use it.
 * Answers NDJSON: progress lines, then one `result` or `error` line.
 */
export async function handleAdminRequest(request: Request): Promise<Response> {
  const handle = await getDbHandle();
  const token = request.headers.get("x-admin-token") ?? "";
  const expected = handle.lock?.adminToken ?? "";
  const ok =
    expected.length > 0 &&
    token.length === expected.length &&
    timingSafeEqual(Buffer.from(token), Buffer.from(expected));
  if (!ok) return new Response("Not found", { status: 404 });

  let argv: string[];
  try {
    const body = (await request.json()) as { argv?: unknown };
    if (!Array.isArray(body.argv) || !body.argv.every((a) => typeof a === "string")) throw new Error();
    argv = body.argv as string[];
  } catch {
    return new Response("Bad request", { status: 400 });
  }

  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (line: object) =>
        controller.enqueue(
          encoder.encode(`${JSON.stringify(line, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}\n`),
        );
      try {
        const result = await runAdminCommand(handle.db, argv, (event: ProgressEvent) => send({ progress: event }));
        send({ result });
      } catch (e) {
        send({ error: (e as Error).message, usage: e instanceof UsageError });
      } finally {
        controller.close();
      }
    },
  });
  return new Response(stream, { headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
}
