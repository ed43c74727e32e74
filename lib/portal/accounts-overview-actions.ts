"use server";

import { z } from "zod";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { listAccountsOverview, OVERVIEW_MAX_LIMIT, OVERVIEW_SORTS } from "@/lib/billing/accounts-overview";
import { getDb } from "@/lib/db/client";
import { getPortalPrincipal } from "./session";

const inputSchema = z.object({
  search: z.string().max(200).optional(),
  sort: z.enum(OVERVIEW_SORTS).optional(),
  descending: z.boolean().optional(),
  offset: z.number().int().min(0).max(1_000_000),
  limit: z.number().int().min(1).max(OVERVIEW_MAX_LIMIT),
});

/** One overview row as the console's table gets it: micro-units as decimal integer text (exact, serialisable). */
export interface OverviewRowView {
  id: string;
  name: string;
  currency: string;
  accountcode: string | null;
  balanceMicros: string;
  creditLimitMicros: string;
  disabled: boolean;
  disabledByOperator: boolean;
  /** The account's zone: its today and this month. */
  timeZone: string;
  todaySpendMicros: string;
  monthSpendMicros: string;
}

export interface OverviewPageView {
  rows: OverviewRowView[];
  total: number;
}

/**
 * A page of the console's accounts overview (lib/billing/accounts-overview.ts) for a session holding accounts:write:
 * platform staff see every account, a reseller's owner or admin its reach (its own account and its subtree). Anyone
 * else gets null, as if there were nothing (the page itself answers 404 to them).
 */
export async function loadAccountsOverview(input: z.input<typeof inputSchema>): Promise<OverviewPageView | null> {
  const principal = await getPortalPrincipal();
  if (!principal || !principal.scopes.has("accounts:write")) return null;
  const parsed = inputSchema.safeParse(input);
  if (!parsed.success) return null;
  const reach = reachOf(principal);
  const page = await listAccountsOverview(await getDb(), {
    ...parsed.data,
    ...(isPlatform(reach) ? {} : { groupIds: reach.groupIds }),
  });
  return {
    ...page,
    rows: page.rows.map((r) => ({
      ...r,
      balanceMicros: r.balanceMicros.toString(),
      creditLimitMicros: r.creditLimitMicros.toString(),
      todaySpendMicros: r.todaySpendMicros.toString(),
      monthSpendMicros: r.monthSpendMicros.toString(),
    })),
  };
}
