import { describe, expect, it } from "vitest";
import { dialledNumber } from "./dialled-number";

describe("dialledNumber", () => {
  it.each([
    ["+44 20 7946 0000", "+442079460000"],
    ["(212) 555-0100", "2125550100"],
    ["44.20.7946.0000", "442079460000"],
    ["+49 151 / 1234 5678", "+4915112345678"],
    ["+44\u00a020\u202f7946\u20130000", "+442079460000"],
    ["442079460000", "442079460000"],
  ])("reads %j as %j", (typed, digits) => {
    expect(dialledNumber(typed)).toBe(digits);
  });

  it("keeps what is not a separator, so the field's check refuses it", () => {
    expect(dialledNumber("+44 20 call me")).toBe("+4420callme");
    expect(dialledNumber("44+20")).toBe("44+20");
  });
});
