import type { Db } from "@/lib/db/client";
import { calls } from "@/lib/db/schema";
import type { NativeCdr } from "@/lib/ingest/schemas";
import { answeredSeconds, elapsedSeconds, priceCall } from "@/lib/rating/billing-math";
import { findBuyRate, findSellRate } from "@/lib/rating/find-rate";

/**
 * Writes fixture CDRs. Stand-in until lib/ingest/ingest-cdrs.ts lands: rates with the rating
 * module's own lookup and arithmetic, but does not debit balances.
 */
export async function storeFixtureCdrs(db: Db, cdrs: NativeCdr[]): Promise<void> {
  for (const cdr of cdrs) {
    const groupId = cdr.billingGroupId!;
    const [group] = await db.query.billingGroups.findMany({ where: (g, { eq }) => eq(g.id, groupId) });
    const sell = await findSellRate(db, groupId, cdr.to);
    const buy = cdr.supplierId ? await findBuyRate(db, cdr.supplierId, cdr.to) : null;
    const answered = answeredSeconds(cdr.answerTime, cdr.endTime);
    const sellCharge = sell ? priceCall(sell.rateMicros, sell.increment, answered) : null;
    const buyCharge = buy ? priceCall(buy.rateMicros, buy.increment, answered) : null;
    await db.insert(calls).values({
      uuid: cdr.uuid,
      billingGroupId: groupId,
      direction: cdr.direction,
      fromNumber: cdr.from,
      toNumber: cdr.to,
      startTime: new Date(cdr.startTime),
      answerTime: cdr.answerTime ? new Date(cdr.answerTime) : null,
      endTime: new Date(cdr.endTime),
      duration: elapsedSeconds(cdr.startTime, cdr.endTime),
      billDuration: sellCharge?.billableSeconds ?? 0,
      pddMs: cdr.pdd === null ? null : Math.round(cdr.pdd * 1000),
      hangupCause: cdr.hangupCause,
      q850Cause: cdr.q850Cause,
      readCodec: cdr.readCodec,
      writeCodec: cdr.writeCodec,
      recordingUrl: cdr.recordingUrl,
      accountcode: cdr.accountcode,
      networkAddr: cdr.networkAddr,
      currency: group.currency,
      rated: sell !== null,
      matchedPrefix: sell?.prefix ?? null,
      sellRateMicros: sell?.rateMicros ?? null,
      incrementMin: sell?.increment.min ?? null,
      incrementInterval: sell?.increment.interval ?? null,
      priceMicros: sellCharge?.micros ?? 0n,
      supplierId: cdr.supplierId,
      buyRateMicros: buy?.rateMicros ?? null,
      buyBillDuration: buyCharge?.billableSeconds ?? null,
      buyCostMicros: buyCharge?.micros ?? null,
    });
  }
}
