import { readJsonBody } from "@/lib/api/body";
import { apiRoute, json } from "@/lib/api/handler";
import { noteWrite } from "@/lib/db/read-replica";
import { ingestRequest } from "@/lib/ingest/ingest-request";
import { ingestCdrsOperation } from "@/lib/ingest/operations";

// POST /v1/cdrs (docs/contract.md §5): switches report completed calls; rated and debited on insert.
export const POST = apiRoute(ingestCdrsOperation, async ({ request, db, principal }) => {
  const answer = await ingestRequest(
    db,
    principal,
    await readJsonBody(request, { expected: 'one CDR or `{ "cdrs": [...] }`' }),
  );
  await noteWrite(db, principal); // read-your-writes on the replica (lib/db/read-replica.ts); nothing without one
  return json(answer.body, answer.status, answer.headers);
});
