import { afterEach, describe, expect, it, vi } from "vitest";
import { EDGE_HEADER, edgeToken } from "@/lib/http/edge-token";
import { countAuthFailure, recordAuthFailure } from "./failure-limit";

/** Headers as lib/server/forwarded-headers.ts leaves them for a client at `address`. */
const from = (address: string) => new Headers({ [EDGE_HEADER]: edgeToken(), "x-forwarded-for": address });

afterEach(() => vi.unstubAllEnvs());

describe("failed authentications per client address", () => {
  it("are admitted up to the burst, then answered with the seconds to wait", async () => {
    vi.stubEnv("AUTH_FAILURES_PER_MINUTE", "10");
    vi.stubEnv("AUTH_FAILURE_BURST", "2");
    expect(await countAuthFailure(from("198.51.100.40"))).toBeNull();
    expect(await countAuthFailure(from("198.51.100.40"))).toBeNull();
    const wait = await countAuthFailure(from("198.51.100.40"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(6);
    // /v1's form: 429 rate_limited with Retry-After.
    const error = await recordAuthFailure(from("198.51.100.40")).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "rate_limited", status: 429 });
    expect(Number((error as { headers: Record<string, string> }).headers["Retry-After"])).toBeGreaterThanOrEqual(1);
    // Another address has its own allowance.
    expect(await countAuthFailure(from("198.51.100.41"))).toBeNull();
  });

  it("are not counted when the limit is off, or when the address is unknown (headers not rewritten)", async () => {
    vi.stubEnv("AUTH_FAILURE_BURST", "1");
    const unknown = new Headers({ "x-forwarded-for": "198.51.100.42" });
    for (let i = 0; i < 3; i++) expect(await countAuthFailure(unknown)).toBeNull();
    vi.stubEnv("AUTH_FAILURES_PER_MINUTE", "0");
    for (let i = 0; i < 3; i++) expect(await countAuthFailure(from("198.51.100.43"))).toBeNull();
  });
});
