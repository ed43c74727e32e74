import { apiRoute } from "@/lib/api/handler";
import { getQualityOperation } from "@/lib/quality/operations";
import { readQualityWindows } from "@/lib/quality/read-windows";

export const GET = apiRoute(getQualityOperation, async ({ readDb, principal, query }) =>
  readQualityWindows(await readDb(), principal, query),
);
