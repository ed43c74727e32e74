import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrefixTable } from "./prefix-table";

function naiveMatch(prefixes: string[], destination: string): string | null {
  const d = destination.replace(/^\+/, "");
  let best: string | null = null;
  for (const p of prefixes) if (d.startsWith(p) && (best === null || p.length > best.length)) best = p;
  return best;
}

describe("PrefixTable", () => {
  it("returns the longest matching prefix and ignores a leading +", () => {
    const t = new PrefixTable<string>();
    for (const p of ["4", "44", "4420", "44207", "1"]) t.add(p, `rate ${p}`);
    expect(t.match("442071234567")).toEqual({ prefix: "44207", value: "rate 44207" });
    expect(t.match("+442081234567")).toEqual({ prefix: "4420", value: "rate 4420" });
    expect(t.match("4430")).toEqual({ prefix: "44", value: "rate 44" });
    expect(t.match("33123")).toBeNull();
    expect(t.match("")).toBeNull();
    expect(t.match("+")).toBeNull();
  });

  it("keeps leading zeros and lengths apart", () => {
    const t = new PrefixTable<number>();
    t.add("0044", 1);
    t.add("44", 2);
    t.add("044", 3);
    expect(t.match("00441")?.prefix).toBe("0044");
    expect(t.match("0441")?.prefix).toBe("044");
    expect(t.match("4401")?.prefix).toBe("44");
  });

  it("handles prefixes longer than 15 digits", () => {
    const t = new PrefixTable<number>();
    t.add("1234567890123456789", 1);
    t.add("123456789012345", 2);
    expect(t.match("12345678901234567890")?.prefix).toBe("1234567890123456789");
    expect(t.match("1234567890123456000")?.prefix).toBe("123456789012345");
  });

  it("refuses duplicates and non-digits", () => {
    const t = new PrefixTable<number>();
    t.add("44", 1);
    expect(() => t.add("44", 2)).toThrow(/duplicate/);
    expect(() => t.add("4a", 2)).toThrow(RangeError);
  });

  it("agrees with a naive scan", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[0-3]{1,18}$/), { maxLength: 60 }),
        fc.array(fc.stringMatching(/^\+?[0-3]{0,20}$/), { maxLength: 30 }),
        (prefixes, destinations) => {
          const t = new PrefixTable<string>();
          for (const p of prefixes) t.add(p, p);
          return destinations.every((d) => (t.match(d)?.prefix ?? null) === naiveMatch(prefixes, d));
        },
      ),
    );
  });
});
