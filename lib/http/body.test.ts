import { describe, expect, it } from "vitest";
import { ApiError, problemBody } from "@/lib/errors/api-error";
import { MAX_BODY_BYTES, isJsonContentType, readJsonBody } from "./body";

function post(
  body: BodyInit | null,
  headers: Record<string, string> = { "content-type": "application/json" },
): Request {
  return new Request("http://127.0.0.1/v1/cdrs", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

/** A body streamed in chunks with no Content-Length, as a chunked client sends it. */
function streamed(totalBytes: number, chunkBytes = 256 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const n = Math.min(chunkBytes, totalBytes - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.code}`;
    throw e;
  }
}

describe("readJsonBody", () => {
  it("parses JSON sent as application/json or a +json type", async () => {
    expect(await readJsonBody(post('{"a":1}'))).toEqual({ a: 1 });
    expect(await readJsonBody(post("[1]", { "content-type": "application/cdr+json; charset=utf-8" }))).toEqual([1]);
  });

  it("answers 413 past 5 MiB, whether declared by Content-Length or only streamed", async () => {
    const big = "x".repeat(MAX_BODY_BYTES + 1);
    expect(await codeOf(readJsonBody(post(big)))).toBe("413 payload_too_large");
    expect(await codeOf(readJsonBody(post(streamed(MAX_BODY_BYTES + 1))))).toBe("413 payload_too_large");
    // Exactly at the cap is allowed (and then fails as JSON, not as size).
    expect(await codeOf(readJsonBody(post(streamed(MAX_BODY_BYTES))))).toBe("422 invalid_request_body");
  });

  it("answers 422 for bad JSON, an empty body, absurd nesting and other content types", async () => {
    expect(await codeOf(readJsonBody(post('{"a":')))).toBe("422 invalid_request_body");
    expect(await codeOf(readJsonBody(post("")))).toBe("422 invalid_request_body");
    expect(await codeOf(readJsonBody(post("[".repeat(200_000) + "]".repeat(200_000))))).toMatch(
      /^(ok|422 invalid_request_body)$/,
    );
    expect(await codeOf(readJsonBody(post('{"a":1}', { "content-type": "text/plain" })))).toBe(
      "422 invalid_request_body",
    );
    expect(await codeOf(readJsonBody(post('{"a":1}', {})))).toBe("422 invalid_request_body");
    expect(isJsonContentType("application/x-www-form-urlencoded")).toBe(false);
  });

  it("answers one 422 code for every unprocessable body, titled for any request", async () => {
    for (const request of [post('{"a":'), post(""), post('{"a":1}', { "content-type": "text/plain" })]) {
      const error = await readJsonBody(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(problemBody(error as ApiError)).toMatchObject({
        status: 422,
        code: "invalid_request_body",
        title: "Unprocessable request body",
      });
    }
  });
});
