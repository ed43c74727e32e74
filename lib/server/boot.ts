import { getDbHandle } from "@/lib/db/client";

/**
 * Runs once when the Next server process starts: opens the database (taking the embedded data
 * directory's lock and recording the port for the admin channel) and applies migrations, so the
 * first request does not pay for it and a misconfiguration fails loudly at start.
 */
export async function bootServer(): Promise<void> {
  const port = Number(process.env.PORT || 3000);
  const handle = await getDbHandle({ role: "server", port });
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event: "database ready", engine: handle.engine })}\n`);
}
