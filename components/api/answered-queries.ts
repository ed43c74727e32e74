import { dehydrate, QueryClient, type DehydratedState } from "@tanstack/react-query";
import type { QueryAnswers } from "@/lib/portal/query-keys";

/**
 * Answers a page's server render read ahead (lib/portal/first-screen.ts) as a HydrationBoundary's state: the browser's
 * queries of those keys start with them instead of fetching after hydration. A null answer is left out (the browser
 * asks, and shows what the API says).
 */
export function answeredQueries(answers: QueryAnswers): DehydratedState {
  const client = new QueryClient();
  for (const [key, answer] of answers) if (answer !== null) client.setQueryData(key, answer);
  return dehydrate(client);
}
