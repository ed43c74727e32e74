import http from "node:http";
import { Readable } from "node:stream";
import { handleAdminRequest } from "./admin-channel";

// The admin channel has its own HTTP listener on 127.0.0.1 and an OS-chosen port, recorded in the
// data directory's lock file for the CLI. The public server (Next, possibly on 0.0.0.0 and behind a
// proxy) has no admin route at all: whether a peer is local is decided by the socket it connected
// through, never by Host or X-Forwarded-For, which any client can write.

const ADMIN_PATH = "/internal/admin";

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  if (address === "::1") return true;
  const v4 = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function notFound(res: http.ServerResponse): void {
  res.writeHead(404, { "content-type": "text/plain", "cache-control": "no-store" }).end("Not found");
}

async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // Bound to loopback already; the socket is checked again in case the bind ever changes. A browser
  // (Origin header) is refused too: a page must not drive the channel through DNS rebinding.
  const path = (req.url ?? "").split("?", 1)[0];
  if (
    !isLoopbackAddress(req.socket.remoteAddress) ||
    req.headers.origin !== undefined ||
    req.method !== "POST" ||
    path !== ADMIN_PATH
  ) {
    req.resume();
    return notFound(res);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const request = new Request(`http://127.0.0.1${ADMIN_PATH}`, {
    method: "POST",
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
  const response = await handleAdminRequest(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  }
  res.end();
}

export interface AdminListener {
  port: number;
  close(): Promise<void>;
}

/** Starts the admin channel's listener on 127.0.0.1 (port chosen by the OS). */
export async function listenAdminChannel(): Promise<AdminListener> {
  const server = http.createServer((req, res) => {
    serve(req, res).catch((e: unknown) => {
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), event: "admin channel error", error: String(e) })}\n`,
      );
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end("Internal error");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  server.unref(); // the admin channel alone must not keep a stopping server alive
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
