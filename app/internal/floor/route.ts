// The framework's floor for `npm run bench` (case 5): a route handler in the same production build
// as /v1 that does no work but answer a constant JSON body of the requested size. The ratio of an
// API route's throughput to this one's is the cost of our code, apart from Next.js itself.
// Answers only when the server was started with BENCH_FLOOR=1 (the bench does); 404 otherwise.

export const dynamic = "force-dynamic";

const ENABLED = process.env.BENCH_FLOOR === "1";
const MAX_BYTES = 1 << 20;
const HEADERS = { "content-type": "application/json", "cache-control": "no-store" };
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

export function GET(request: Request): Response {
  if (!ENABLED) return new Response(null, { status: 404 });
  const raw = new URL(request.url).searchParams.get("bytes");
  const bytes = raw === null ? 128 : Number(raw);
  if (!Number.isInteger(bytes) || bytes < 12 || bytes > MAX_BYTES) return new Response(null, { status: 400 });
  return new Response(constantBody(bytes), { headers: HEADERS });
}
