import { afterEach, describe, expect, it } from "vitest";
import { allowedHosts } from "./env";

describe("ALLOWED_HOSTS", () => {
  const saved = process.env.ALLOWED_HOSTS;
  afterEach(() => {
    if (saved === undefined) delete process.env.ALLOWED_HOSTS;
    else process.env.ALLOWED_HOSTS = saved;
  });

  it("reads comma-separated hosts, lower case, ignoring schemes, paths and blanks", () => {
    process.env.ALLOWED_HOSTS = " API.example.com, https://portal.example.com/x ,,api.example.com:8443 ";
    expect([...allowedHosts()]).toEqual(["api.example.com", "portal.example.com", "api.example.com:8443"]);
    delete process.env.ALLOWED_HOSTS;
    expect(allowedHosts().size).toBe(0);
  });
});
