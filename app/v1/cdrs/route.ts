import { apiRoute, json } from "@/lib/api/handler";
import { noteWrite } from "@/lib/db/read-replica";
import { readCdrBody } from "@/lib/ingest/cdr-body";
import { ingestRequest } from "@/lib/ingest/ingest-request";
import { ingestCdrsOperation } from "@/lib/ingest/operations";

// POST /v1/cdrs (docs/contract.md §5): switches report completed calls; rated and debited on insert. FreeSWITCH's
// mod_json_cdr authenticates with HTTP Basic (the operation's basicAuth) and may post its form encodings.
export const POST = apiRoute(ingestCdrsOperation, async ({ request, db, principal }) => {
  const answer = await ingestRequest(db, principal, await readCdrBody(request));
  await noteWrite(db, principal.billingGroupId); // read-your-writes on the replica (lib/db/read-replica.ts); nothing without one
  return json(answer.body, answer.status, answer.headers);
});
