import { afterEach, describe, expect, it, vi } from "vitest";
import { allowedHosts } from "./env";

describe("ALLOWED_HOSTS", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads comma-separated hosts, lower case, ignoring schemes, paths and blanks", () => {
    vi.stubEnv("ALLOWED_HOSTS", " API.example.com, https://portal.example.com/x ,,api.example.com:8443 ");
    expect([...allowedHosts()]).toEqual(["api.example.com", "portal.example.com", "api.example.com:8443"]);
    vi.stubEnv("ALLOWED_HOSTS", undefined);
    expect(allowedHosts().size).toBe(0);
  });
});
