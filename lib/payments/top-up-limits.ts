import { topUpBounds } from "@/lib/config/env";

/** The bounds of one top-up or recharge in micro-units (TOPUP_MIN, TOPUP_MAX in the group's currency). */
export function topUpLimitsMicros(): { min: bigint; max: bigint } {
  const { min, max } = topUpBounds();
  return { min: BigInt(Math.round(min * 1e6)), max: BigInt(Math.round(max * 1e6)) };
}
