import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addressBucket, takeAddressToken } from "./address-limit";

describe("addressBucket", () => {
  it("counts IPv4 by address and IPv6 by its /64, an IPv4-mapped address as IPv4", () => {
    expect(addressBucket("192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressBucket("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:DB8:1:2::9")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:3::9")).toBe("2001:db8:1:3::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
  });
});

describe("takeAddressToken in memory (no REDIS_URL)", () => {
  const limit = { name: `test-${randomBytes(4).toString("hex")}`, perMinute: 10, burst: 3 };

  it("admits the burst per address, then refuses with the seconds until one more is admitted", async () => {
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await takeAddressToken(limit, "192.0.2.20"));
    expect(taken.map((d) => d?.allowed)).toEqual([true, true, true, false]);
    // 10 a minute: one token every 6 s.
    expect(taken[3]?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(taken[3]?.retryAfterSeconds).toBeLessThanOrEqual(6);
    expect((await takeAddressToken(limit, "192.0.2.21"))?.allowed).toBe(true);
  });

  it("shares one bucket across an IPv6 /64", async () => {
    const answers = [];
    for (const host of ["1", "2", "3", "4"]) answers.push(await takeAddressToken(limit, `2001:db8:aa:bb::${host}`));
    expect(answers.map((d) => d?.allowed)).toEqual([true, true, true, false]);
    expect((await takeAddressToken(limit, "2001:db8:aa:bc::1"))?.allowed).toBe(true);
  });

  it("takes nothing when the limit is off or the address is unknown", async () => {
    expect(await takeAddressToken({ ...limit, perMinute: 0 }, "192.0.2.22")).toBeNull();
    expect(await takeAddressToken({ ...limit, burst: 0 }, "192.0.2.22")).toBeNull();
    expect(await takeAddressToken(limit, null)).toBeNull();
  });
});
