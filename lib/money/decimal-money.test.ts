import { expect, it } from "vitest";
import { decimalMoney } from "./decimal-money";

it("takes decimal strings exactly as micro-units and refuses JSON numbers and a seventh decimal", () => {
  const schema = decimalMoney("10.00");
  expect(schema.parse("25.5")).toBe(25_500_000n);
  expect(schema.parse("-0.000001")).toBe(-1n);
  expect(schema.safeParse(25.5).error?.issues[0].message).toBe(
    'must be a decimal string such as "10.00" (not a JSON number)',
  );
  expect(schema.safeParse("1.1234567").success).toBe(false);
  expect(schema.safeParse("1e3").success).toBe(false);
});
