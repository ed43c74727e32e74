import { isEmbedded, type Db } from "@/lib/db/client";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { ingestCdrs, type IngestOptions, type IngestOutcome } from "./ingest-cdrs";
import type { NativeCdr } from "./schemas";

/** Largest merged batch: the same bound as a batch request. */
export const MAX_CDRS_PER_FLUSH = 1000;

type IngestFn = (db: Db, cdrs: readonly NativeCdr[], options: IngestOptions) => Promise<IngestOutcome[]>;

interface Waiter {
  cdr: NativeCdr;
  resolve: (outcome: IngestOutcome) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  queue: Waiter[];
  /** A flush is running or claimed (queued for the next turn of the event loop). */
  busy: boolean;
}

export interface IngestCoalescer {
  /** Ingests one CDR, merged with the CDRs other callers send meanwhile; answers exactly what ingesting it alone would. */
  ingestOne(db: Db, cdr: NativeCdr, options?: IngestOptions): Promise<IngestOutcome>;
}

/**
 * Group commit for single-CDR posts: the transaction, not the CDR, is what costs. A lone caller is
 * flushed on the next turn of the event loop (no timer); callers arriving meanwhile or while a flush
 * runs queue and share the next one.
 * A merged batch that fails is replayed CDR by CDR, so only the faulty CDR's caller sees the error.
 */
export function createIngestCoalescer(ingest: IngestFn = ingestCdrs): IngestCoalescer {
  // Keyed by db handle, then by restriction (and group, on PostgreSQL): only CDRs with the same restriction merge.
  const lanes = new WeakMap<Db, Map<string, Lane>>();

  async function flushBatch(db: Db, options: IngestOptions, batch: Waiter[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outcomes = await ingest(
          db,
          batch.map((w) => w.cdr),
          options,
        );
        batch.forEach((w, i) => w.resolve(outcomes[i]));
        return;
      } catch {
        // The batch wrote nothing: fall through and give each caller its own answer, in arrival order.
      }
    }
    for (const w of batch) {
      try {
        const [outcome] = await ingest(db, [w.cdr], options);
        w.resolve(outcome);
      } catch (e) {
        w.reject(e);
      }
    }
  }

  /** Runs flushes while the lane has callers (`lane.busy` is already claimed), then drops the idle lane. */
  async function drain(db: Db, restrictToBillingGroupId: string | null, lane: Lane, forget: () => void): Promise<void> {
    try {
      while (lane.queue.length > 0) {
        await flushBatch(db, { restrictToBillingGroupId }, lane.queue.splice(0, MAX_CDRS_PER_FLUSH));
        // PGlite runs a flush without yielding to I/O: give the requests received meanwhile a turn of the
        // event loop to join the next one. On PostgreSQL they arrived while it waited on the network.
        if (lane.queue.length > 0 && isEmbedded(db)) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      lane.busy = false;
      if (lane.queue.length === 0) forget();
    }
  }

  return {
    ingestOne(db, cdr, options = {}) {
      let byRestriction = lanes.get(db);
      if (!byRestriction) lanes.set(db, (byRestriction = new Map()));
      // A bound key's CDR that names the key's own group passes the restriction exactly when the group
      // exists, which ingest checks for every CDR anyway: it merges with unrestricted CDRs, whichever keys post.
      // Only a bound key's CDR naming an accountcode keeps its restriction.
      let restrict = options.restrictToBillingGroupId ?? null;
      if (restrict !== null && cdr.billingGroupId === restrict) restrict = null;
      // PGlite runs one statement at a time: one lane, the biggest batches. PostgreSQL runs flushes on several
      // connections: one lane per group, so the flushes of different groups run in parallel instead of
      // queueing behind each other's row locks (balance, usage rollups) in one lane.
      const group = isEmbedded(db) ? "" : (cdr.billingGroupId ?? `ac:${cdr.accountcode}`);
      const key = `${restrict ?? ""}\u0000${group}`;
      let lane = byRestriction.get(key);
      if (!lane) byRestriction.set(key, (lane = { queue: [], busy: false }));
      const promise = new Promise<IngestOutcome>((resolve, reject) => lane.queue.push({ cdr, resolve, reject }));
      if (!lane.busy) {
        // Claimed now, started after the event loop's current I/O phase: requests already received
        // join this flush. It is a turn of the loop, not a timer.
        lane.busy = true;
        const lanesOfDb = byRestriction;
        setImmediate(() => void drain(db, restrict, lane, () => lanesOfDb.delete(key)));
      }
      return promise;
    },
  };
}

/** The process-wide coalescer (processSingleton: every route module bundle shares one queue per db). */
export function getIngestCoalescer(): IngestCoalescer {
  return processSingleton("ingestCoalescer", createIngestCoalescer);
}
