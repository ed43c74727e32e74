import { randomUUID } from "node:crypto";
import { openApiDocument } from "@/lib/api/openapi";

export const dynamic = "force-dynamic";

/** Public: the description of the API needs no key. */
export function GET(): Response {
  return new Response(JSON.stringify(openApiDocument()), {
    headers: { "content-type": "application/json", "cache-control": "no-store", "x-request-id": randomUUID() },
  });
}
