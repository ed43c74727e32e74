import { describe, expect, it } from "vitest";
import { isFromTheStart, splitWarnings } from "./deck-review";

const warning = (prefix: string, buyPrefix: string) => ({ prefix, buyPrefix });

describe("isFromTheStart", () => {
  it("is the epoch, in any offset", () => {
    expect(isFromTheStart("1970-01-01T00:00:00.000Z")).toBe(true);
    expect(isFromTheStart("1970-01-01T01:00:00+01:00")).toBe(true);
  });
  it("is not any later instant", () => {
    expect(isFromTheStart("1970-01-01T00:00:01Z")).toBe(false);
    expect(isFromTheStart("2026-11-01T00:00:00Z")).toBe(false);
  });
});

describe("splitWarnings", () => {
  it("a sell deck: warnings on added and changed sell prefixes first, the rest counted with the unlisted", () => {
    const split = splitWarnings({
      side: "sell",
      added: [{ prefix: "4420" }],
      changed: [{ prefix: "331" }],
      marginWarnings: [warning("331", "33"), warning("49", "49"), warning("4420", "44"), warning("1", "1")],
      marginWarningCount: 1805,
    });
    expect(split.onChanges.map((w) => w.prefix)).toEqual(["331", "4420"]);
    expect(split.others.map((w) => w.prefix)).toEqual(["49", "1"]);
    expect(split.othersCount).toBe(1803);
  });

  it("a buy deck: the warnings whose matched supplier prefix changed", () => {
    const split = splitWarnings({
      side: "buy",
      added: [],
      changed: [{ prefix: "44" }],
      marginWarnings: [warning("4420", "44"), warning("44", "4"), warning("49", "49")],
      marginWarningCount: 3,
    });
    expect(split.onChanges).toEqual([warning("4420", "44")]);
    expect(split.othersCount).toBe(2);
  });
});
