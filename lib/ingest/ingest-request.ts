import type { Principal } from "@/lib/auth/principal";
import { ownGroup, reachOf } from "@/lib/auth/reach";
import { ApiError, type ParamError } from "@/lib/errors/api-error";
import { serializeCallDetail } from "@/lib/calls/serialize-call";
import type { Db } from "@/lib/db/client";
import { microsToNumber } from "@/lib/money/micros";
import { MAX_CDRS_PER_REQUEST, type CdrBatchResult } from "./api-schemas";
import { getIngestCoalescer } from "./coalesce-ingest";
import { freeswitchToNative, isFreeswitchCdr } from "./freeswitch";
import { CdrConflictError, CdrRejectedError, ingestCdrs } from "./ingest-cdrs";
import { nativeCdrSchema, type NativeCdr } from "./schemas";

export interface IngestAnswer {
  status: 200 | 201;
  body: object;
  headers: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The field an Error from a format mapper names first ("variables.uuid is missing" -> "variables.uuid"). */
function fieldOfMessage(message: string): string | null {
  const m = /^([A-Za-z_][\w.[\]]*)(?::|\s)/.exec(message);
  return m ? m[1] : null;
}

/** One CDR of the request (native or FreeSWITCH) validated; errors carry the param as the client wrote it. */
function parseOne(doc: unknown, at: string, principal: Principal): { cdr?: NativeCdr; errors: ParamError[] } {
  const join = (field: string | null) => (field ? (at ? `${at}.${field}` : field) : at || "(body)");
  if (!isObject(doc)) return { errors: [{ param: at || "(body)", message: "a CDR must be a JSON object" }] };
  let input: Record<string, unknown> = doc;
  if (isFreeswitchCdr(doc)) {
    try {
      input = { ...freeswitchToNative(doc) };
    } catch (e) {
      const message = (e as Error).message;
      return { errors: [{ param: join(fieldOfMessage(message)), message }] };
    }
  }
  // A key bound to a group reports that group's calls: it need not name it.
  const own = ownGroup(reachOf(principal));
  if (own !== null && input.billingGroupId == null && input.accountcode == null) {
    input = { ...input, billingGroupId: own };
  }
  const parsed = nativeCdrSchema.safeParse(input);
  if (parsed.success) return { cdr: parsed.data, errors: [] };
  return {
    errors: parsed.error.issues.map((issue) => ({
      param: join(issue.path.map(String).join(".") || null),
      message: issue.message,
    })),
  };
}

/**
 * POST /v1/cdrs: one CDR, or `{ cdrs: [...] }` with 1..1000, native JSON or FreeSWITCH mod_json_cdr.
 * The whole request is validated before anything is stored; then one ingest transaction
 * (a single CDR may share it with other single-CDR requests in flight: see coalesce-ingest.ts).
 * One CDR answers the stored call (201 new, 200 replay); a batch answers a result per CDR.
 */
export async function ingestRequest(db: Db, principal: Principal, body: unknown): Promise<IngestAnswer> {
  const batch = isObject(body) && "cdrs" in body && !isFreeswitchCdr(body);
  let docs: unknown[];
  if (batch) {
    const list = (body as { cdrs: unknown }).cdrs;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_CDRS_PER_REQUEST) {
      throw new ApiError("invalid_request_body", `\`cdrs\` must be an array of 1 to ${MAX_CDRS_PER_REQUEST} CDRs.`, [
        { param: "cdrs", message: Array.isArray(list) ? `${list.length} CDRs` : "not an array" },
      ]);
    }
    docs = list;
  } else {
    docs = [body];
  }

  const cdrs: NativeCdr[] = [];
  const errors: ParamError[] = [];
  docs.forEach((doc, i) => {
    const one = parseOne(doc, batch ? `cdrs[${i}]` : "", principal);
    if (one.cdr) cdrs.push(one.cdr);
    errors.push(...one.errors);
  });
  if (errors.length > 0) {
    const shown = errors.slice(0, 50);
    throw new ApiError(
      "invalid_request_body",
      `${errors.length} invalid field${errors.length === 1 ? "" : "s"}; nothing was stored.${errors.length > shown.length ? ` The first ${shown.length} are listed.` : ""}`,
      shown,
    );
  }

  const param = (index: number, field: string) => (batch ? `cdrs[${index}].${field}` : field);
  let outcomes;
  try {
    const options = { restrictToBillingGroupId: ownGroup(reachOf(principal)) };
    // Switches post one CDR per request: concurrent ones share a transaction (same answers as alone).
    outcomes = batch
      ? await ingestCdrs(db, cdrs, options)
      : [await getIngestCoalescer().ingestOne(db, cdrs[0], options)];
  } catch (e) {
    if (e instanceof CdrRejectedError) {
      throw new ApiError("invalid_request_body", `${e.message}; nothing was stored.`, [
        { param: param(e.index, e.field), message: e.message },
      ]);
    }
    if (e instanceof CdrConflictError) {
      throw new ApiError(
        "conflict",
        `A call with uuid ${e.uuid} is already stored with different content (${e.fields.join(", ")}); nothing was stored.`,
        e.fields.map((f) => ({ param: param(e.index, f), message: "differs from the stored call" })),
      );
    }
    throw e;
  }

  if (!batch) {
    const [{ status, call }] = outcomes;
    return {
      status: status === "created" ? 201 : 200,
      body: serializeCallDetail(call, principal),
      headers: status === "created" ? { Location: `/v1/calls/${call.id}` } : { "Idempotent-Replayed": "true" },
    };
  }
  const result: CdrBatchResult = {
    object: "cdr_batch",
    results: outcomes.map(({ status, call }, index) => ({
      index,
      uuid: call.uuid,
      status,
      id: String(call.id),
      rated: call.rated,
      price: microsToNumber(call.priceMicros),
      currency: call.currency.trim(),
    })),
    summary: { received: outcomes.length, created: 0, duplicate: 0, unrated: 0 },
  };
  for (const r of result.results) {
    if (r.status === "created") result.summary.created++;
    else result.summary.duplicate++;
    if (r.status === "created" && !r.rated) result.summary.unrated++;
  }
  return { status: result.summary.created > 0 ? 201 : 200, body: result, headers: {} };
}
