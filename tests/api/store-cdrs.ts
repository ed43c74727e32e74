import type { Db } from "@/lib/db/client";
import { ingestCdrs } from "@/lib/ingest/ingest-cdrs";
import type { NativeCdr } from "@/lib/ingest/schemas";

/** Fixture calls go through the real ingest path: rated, debited, stored like a switch's. */
export async function storeFixtureCdrs(db: Db, cdrs: NativeCdr[]): Promise<void> {
  for (let at = 0; at < cdrs.length; at += 100) {
    const outcomes = await ingestCdrs(db, cdrs.slice(at, at + 100));
    if (outcomes.some((o) => o.status !== "created")) throw new Error("fixture CDRs must all be new");
  }
}
