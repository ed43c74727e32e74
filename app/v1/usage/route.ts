import { apiRoute } from "@/lib/api/handler";
import { summarizeUsageOperation } from "@/lib/usage/operations";
import { summarizeUsage, usageFiltersFromQuery } from "@/lib/usage/summarize-usage";

export const GET = apiRoute(summarizeUsageOperation, async ({ readDb, principal, query }) =>
  summarizeUsage(await readDb(), principal, usageFiltersFromQuery(query), {
    groupBy: query.groupBy,
    timeZone: query.timeZone,
  }),
);
