/**
 * Which call log columns a session gets. Decided on the server from the session's scopes and
 * passed down: a session without calls:read_cost is never sent the cost columns' names at all.
 * A platform session (every account) and a reseller's (its subtree) also get the account column. Of those, each person shows the
 * ones they choose (kept in their browser); the default set fits a 1440 px screen without scrolling.
 */
export const BASE_CALL_COLUMNS = [
  "startTime",
  "direction",
  "from",
  "to",
  "duration",
  "billDuration",
  "status",
  "hangupCause",
  "price",
] as const;
export const COST_CALL_COLUMNS = ["buyCost", "margin", "supplierId"] as const;
export const PLATFORM_CALL_COLUMNS = ["account"] as const;

export type CallColumnId =
  (typeof BASE_CALL_COLUMNS)[number] | (typeof COST_CALL_COLUMNS)[number] | (typeof PLATFORM_CALL_COLUMNS)[number];

export function callColumnsFor(session: {
  canReadCost: boolean;
  billingGroupId: string | null;
  canReadOperatorCost?: boolean;
  reachesSeveral?: boolean;
}): CallColumnId[] {
  const [startTime, ...rest] = BASE_CALL_COLUMNS;
  const base: CallColumnId[] =
    session.billingGroupId === null || session.reachesSeveral
      ? [startTime, ...PLATFORM_CALL_COLUMNS, ...rest]
      : [...BASE_CALL_COLUMNS];
  if (!session.canReadCost) return base;
  // A reseller's cost view has its own buy cost and margin, never the supplier (lib/auth/cost-view.ts).
  const operator = session.canReadOperatorCost ?? session.billingGroupId === null;
  return [...base, ...COST_CALL_COLUMNS.filter((c) => operator || c !== "supplierId")];
}

/** Fixed widths in rem: rows are virtualised, so columns must not resize as rows come and go. */
export const CALL_COLUMN_REM: Record<CallColumnId, number> = {
  startTime: 10,
  account: 10,
  direction: 6,
  from: 8.5,
  to: 12,
  duration: 6,
  billDuration: 5,
  status: 7,
  hangupCause: 11,
  price: 7,
  buyCost: 7,
  margin: 7,
  supplierId: 9.5,
};

export const CALL_COLUMN_LABEL: Record<CallColumnId, string> = {
  startTime: "Start time",
  account: "Account",
  direction: "Direction",
  from: "From",
  to: "To",
  duration: "Duration",
  billDuration: "Billed",
  status: "Status",
  hangupCause: "Hangup cause",
  price: "Price",
  buyCost: "Buy cost",
  margin: "Margin",
  supplierId: "Supplier",
};

/**
 * The width the call log's columns may take at 1440 px, in rem of 16 px: 1440 less the page's padding (48),
 * the card's borders and a vertical scrollbar leave ~1375 px; 85 rem is 1360.
 */
export const DESKTOP_BUDGET_REM = 85;
/** Left out of the default, in this order, until the rest fits: the raw cause, buy cost (margin says it), billed. */
const DROP_ORDER: CallColumnId[] = ["hangupCause", "buyCost", "billDuration"];

export function columnsWidthRem(columns: readonly CallColumnId[]): number {
  return columns.reduce((sum, c) => sum + CALL_COLUMN_REM[c], 0);
}

/** The columns shown until a person chooses: every available one that fits the budget. */
export function defaultCallColumns(available: readonly CallColumnId[], budgetRem = DESKTOP_BUDGET_REM): CallColumnId[] {
  let shown = available.filter((c) => c !== "hangupCause");
  for (const drop of DROP_ORDER) {
    if (columnsWidthRem(shown) <= budgetRem) break;
    shown = shown.filter((c) => c !== drop);
  }
  return shown;
}

/**
 * A stored choice (JSON from localStorage, possibly old or edited) read against the columns this session may
 * have: unknown and unavailable ids are dropped, the order is the log's own, the start time is always shown.
 * Nothing usable: the default.
 */
export function chosenCallColumns(available: readonly CallColumnId[], stored: string | null): CallColumnId[] {
  let ids: unknown;
  try {
    ids = stored === null ? null : JSON.parse(stored);
  } catch {
    ids = null;
  }
  if (!Array.isArray(ids)) return defaultCallColumns(available);
  const wanted = new Set(ids.filter((id): id is string => typeof id === "string"));
  const shown = available.filter((c) => c === "startTime" || wanted.has(c));
  return shown.length > 1 ? shown : defaultCallColumns(available);
}
