import { apiRoute } from "@/lib/api/handler";
import { usageQuerySchema } from "@/lib/usage/schemas";
import { summarizeUsage, usageFiltersFromQuery } from "@/lib/usage/summarize-usage";

export const GET = apiRoute({ scope: "calls:read", query: usageQuerySchema }, async ({ readDb, principal, query }) =>
  summarizeUsage(await readDb(), principal, usageFiltersFromQuery(query), {
    groupBy: query.groupBy,
    timeZone: query.timeZone,
  }),
);
