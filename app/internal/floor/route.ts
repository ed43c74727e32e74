// The framework's floor for `npm run bench` (cases 2 and 5): a route handler in the same production build
// as /v1 that does no work but answer a constant JSON body of the requested size (POST: after reading the
// request's body, as POST /v1/cdrs must). The ratio of an API route's throughput to this one's is the cost
// of our code, apart from Next.js itself.
// Its answers are built by the API's jsonText (the same headers: a small answer is not gzipped either), so Next.js
// does the same work for both. Answers only when the server was started with BENCH_FLOOR=1 (the bench does); 404 otherwise.

import { jsonText } from "@/lib/http/json-response";
import { benchFloorEnabled } from "@/lib/config/env";

export const dynamic = "force-dynamic";

const ENABLED = benchFloorEnabled();
const MAX_BYTES = 1 << 20;
const bodies = new Map<number, string>();

/** A JSON object of exactly `bytes` characters (>= 12), built once per size. */
function constantBody(bytes: number): string {
  let body = bodies.get(bytes);
  if (body === undefined) {
    body = JSON.stringify({ floor: "x".repeat(bytes - 12) });
    if (bodies.size < 16) bodies.set(bytes, body);
  }
  return body;
}

function floorResponse(request: Request, status: number): Response {
  if (!ENABLED) return new Response(null, { status: 404 });
  const raw = new URL(request.url).searchParams.get("bytes");
  const bytes = raw === null ? 128 : Number(raw);
  if (!Number.isInteger(bytes) || bytes < 12 || bytes > MAX_BYTES) return new Response(null, { status: 400 });
  return jsonText(constantBody(bytes), status);
}

export function GET(request: Request): Response {
  return floorResponse(request, 200);
}

/** The body is read in full (as any ingest must) and then ignored; 201 as a stored CDR is answered. */
export async function POST(request: Request): Promise<Response> {
  if (ENABLED) await request.arrayBuffer();
  return floorResponse(request, 201);
}
