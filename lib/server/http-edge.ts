import diagnostics_channel from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { refuseUnsupportedMethod } from "@/lib/api/method-guard";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { rewriteForwardedHeaders } from "./forwarded-headers";

/**
 * What every request goes through on the HTTP server, before Next.js sees it: its forwarded headers rewritten by
 * the trusted-proxy rule (forwarded-headers.ts), then methods Next cannot answer refused (lib/api/method-guard.ts).
 * Node publishes `http.server.request.start` (diagnostics_channel) synchronously before it emits `request`,
 * which lets each server's emit be wrapped once; `next start` and the standalone server.js are both one
 * node:http server in this process. A request accepted before this is installed (the first moments of a start)
 * is not rewritten: code reading forwarded headers recognises that (forwarded-headers.ts edgeToken) and ignores them.
 */
export function installHttpEdge(): void {
  processSingleton("http-edge", subscribeHttpEdge);
}

/** Subscribes once per process (installHttpEdge). */
function subscribeHttpEdge(): true {
  const wrapped = new WeakSet<Server>();
  diagnostics_channel.subscribe("http.server.request.start", (message) => {
    const { server } = message as { server: Server };
    if (wrapped.has(server)) return;
    wrapped.add(server);
    const emit = server.emit;
    server.emit = function edgeEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
      if (event === "request") {
        const [req, res] = args as [IncomingMessage, ServerResponse];
        rewriteForwardedHeaders(req);
        if (refuseUnsupportedMethod(req, res)) return true;
      }
      return emit.apply(this, [event, ...args] as Parameters<Server["emit"]>);
    } as Server["emit"];
  });
  return true;
}
