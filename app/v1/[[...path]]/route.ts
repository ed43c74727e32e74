import { randomUUID } from "node:crypto";
import { ApiError } from "@/lib/errors/api-error";
import { problemResponse } from "@/lib/api/handler";

// Any /v1 path no route claims: a problem+json 404 like every other API error, not Next's HTML page.
function notFound(request: Request): Response {
  const requestId = randomUUID();
  const { pathname } = new URL(request.url);
  const response = problemResponse(
    new ApiError("not_found", `No endpoint ${pathname.slice(0, 200)}. See /v1/openapi.json.`),
    requestId,
  );
  response.headers.set("X-Request-Id", requestId);
  return response;
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
