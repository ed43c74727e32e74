import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrefixIndex } from "./prefix-table";

function naiveMatch(prefixes: string[], destination: string): string | null {
  const d = destination.replace(/^\+/, "");
  let best: string | null = null;
  for (const p of prefixes) if (d.startsWith(p) && (best === null || p.length > best.length)) best = p;
  return best;
}

/** The matched prefix (as index order names it) and the destination's digits it covers. */
function match(t: PrefixIndex, prefixes: string[], destination: string): string | null {
  const i = t.find(destination);
  if (i < 0) return null;
  const start = destination.startsWith("+") ? 1 : 0;
  expect(destination.slice(start, start + t.matchLength)).toBe(prefixes[i]);
  return prefixes[i];
}

function indexOf(prefixes: string[]): PrefixIndex {
  const t = new PrefixIndex();
  prefixes.forEach((p, i) => expect(t.add(p)).toBe(i));
  return t;
}

describe("PrefixIndex", () => {
  it("returns the longest matching prefix and ignores a leading +", () => {
    const prefixes = ["4", "44", "4420", "44207", "1"];
    const t = indexOf(prefixes);
    expect(match(t, prefixes, "442071234567")).toBe("44207");
    expect(match(t, prefixes, "+442081234567")).toBe("4420");
    expect(match(t, prefixes, "4430")).toBe("44");
    expect(match(t, prefixes, "33123")).toBeNull();
    expect(match(t, prefixes, "")).toBeNull();
    expect(match(t, prefixes, "+")).toBeNull();
  });

  it("keeps leading zeros and lengths apart", () => {
    const prefixes = ["0044", "44", "044"];
    const t = indexOf(prefixes);
    expect(match(t, prefixes, "00441")).toBe("0044");
    expect(match(t, prefixes, "0441")).toBe("044");
    expect(match(t, prefixes, "4401")).toBe("44");
  });

  it("handles prefixes longer than 15 digits", () => {
    const prefixes = ["1234567890123456789", "123456789012345"];
    const t = indexOf(prefixes);
    expect(match(t, prefixes, "12345678901234567890")).toBe("1234567890123456789");
    expect(match(t, prefixes, "1234567890123456000")).toBe("123456789012345");
  });

  it("adds a prefix from a slice of a text without copying it", () => {
    const t = new PrefixIndex();
    expect(t.addDigits("x,4420,y", 2, 6)).toBe(0);
    expect(t.addDigits("12345678901234567890", 0, 17)).toBe(1);
    expect(t.find("44201")).toBe(0);
    expect(t.find("123456789012345678")).toBe(1);
    expect(t.prefixes()).toEqual(["4420", "12345678901234567"]);
  });

  it("refuses duplicates, non-digits and lengths outside 1-20", () => {
    const t = new PrefixIndex();
    t.add("44");
    expect(() => t.add("44")).toThrow(/duplicate/);
    expect(() => t.add("4a")).toThrow(RangeError);
    expect(() => t.add("")).toThrow(RangeError);
    expect(() => t.add("1".repeat(21))).toThrow(RangeError);
    expect(() => t.add("1".repeat(16) + "a")).toThrow(RangeError);
    expect(t.size).toBe(1);
  });

  it("agrees with a naive scan, and gives every prefix back by index", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[0-3]{1,18}$/), { maxLength: 60 }),
        fc.array(fc.stringMatching(/^\+?[0-3]{0,20}$/), { maxLength: 30 }),
        (prefixes, destinations) => {
          const t = new PrefixIndex();
          for (const p of prefixes) t.add(p);
          return (
            destinations.every((d) => match(t, prefixes, d) === naiveMatch(prefixes, d)) &&
            JSON.stringify(t.prefixes()) === JSON.stringify(prefixes)
          );
        },
      ),
    );
  });
});
