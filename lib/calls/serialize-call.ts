import { canReadCost, type Principal } from "@/lib/auth/principal";
import { microsToNumber } from "@/lib/money/micros";
import { priceBilledSeconds } from "@/lib/rating/billing-math";
import type { Call, CallDetail, CallDetailWithCost, CallWithCost } from "./schemas";
import type { StoredCall } from "./stored-call";

const iso = (d: Date) => d.toISOString();
const money = (m: bigint | null) => (m === null ? null : microsToNumber(m));

/**
 * THE one place a calls row becomes the API's Call (docs/contract.md §4). Cost-only fields are added only
 * for calls:read_cost principals, so they are absent (not null) everywhere else: JSON, CSV, portal.
 */
export function serializeCall(row: StoredCall, principal: Principal): Call | CallWithCost {
  const call: Call = {
    id: String(row.id),
    uuid: row.uuid,
    direction: row.direction,
    from: row.fromNumber,
    to: row.toNumber,
    startTime: iso(row.startTime),
    endTime: iso(row.endTime),
    duration: row.duration,
    billDuration: row.billDuration,
    pdd: row.pddMs === null ? null : row.pddMs / 1000,
    hangupCause: row.hangupCause,
    q850Cause: row.q850Cause,
    readCodec: row.readCodec,
    writeCodec: row.writeCodec,
    price: microsToNumber(row.priceMicros),
    currency: row.currency,
    recordingUrl: row.recordingUrl,
    billingGroupId: row.billingGroupId,
    rated: row.rated,
  };
  if (!canReadCost(principal)) return call;
  return {
    ...call,
    buyCost: money(row.buyCostMicros),
    // Subtract in micros, then format: exact, never a float difference.
    margin: row.buyCostMicros === null ? null : microsToNumber(row.priceMicros - row.buyCostMicros),
    supplierId: row.supplierId,
  };
}

/** The parts of a rated call's price, recomputed from what rated it with the same pure billing math. */
function priceParts(row: StoredCall) {
  const parts =
    row.rated && row.sellRateMicros !== null
      ? priceBilledSeconds(row.sellRateMicros, row.billDuration, { connectFeeMicros: row.connectFeeMicros, minChargeMicros: row.minChargeMicros })
      : null;
  return {
    connectFee: money(row.connectFeeMicros),
    minCharge: money(row.minChargeMicros),
    usageCharge: parts && microsToNumber(parts.usageMicros),
    minChargeApplied: parts?.minChargeApplied ?? false,
  };
}

/** GET /v1/calls/{id} (and the ingest answer): the list fields plus the detail of docs/contract.md §4. */
export function serializeCallDetail(row: StoredCall, principal: Principal): CallDetail | CallDetailWithCost {
  const detail = {
    ...serializeCall(row, principal),
    accountcode: row.accountcode,
    networkAddr: row.networkAddr,
    answerTime: row.answerTime === null ? null : iso(row.answerTime),
    matchedPrefix: row.matchedPrefix,
    sellRate: money(row.sellRateMicros),
    billingIncrement:
      row.incrementMin === null || row.incrementInterval === null ? null : `${row.incrementMin}/${row.incrementInterval}`,
    ...priceParts(row),
  };
  if (!canReadCost(principal)) return detail;
  return { ...(detail as CallDetailWithCost), buyRate: money(row.buyRateMicros) };
}
