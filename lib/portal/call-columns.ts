/**
 * Which call log columns a session gets. Decided on the server from the session's scopes and
 * passed down: a session without calls:read_cost is never sent the cost columns' names at all.
 * A platform session (every account) also gets the account column.
 */
export const BASE_CALL_COLUMNS = [
  "startTime",
  "direction",
  "from",
  "to",
  "duration",
  "billDuration",
  "hangupCause",
  "price",
] as const;
export const COST_CALL_COLUMNS = ["buyCost", "margin", "supplierId"] as const;
export const PLATFORM_CALL_COLUMNS = ["account"] as const;

export type CallColumnId =
  (typeof BASE_CALL_COLUMNS)[number] | (typeof COST_CALL_COLUMNS)[number] | (typeof PLATFORM_CALL_COLUMNS)[number];

export function callColumnsFor(session: { canReadCost: boolean; billingGroupId: string | null }): CallColumnId[] {
  const [startTime, ...rest] = BASE_CALL_COLUMNS;
  const base: CallColumnId[] =
    session.billingGroupId === null ? [startTime, ...PLATFORM_CALL_COLUMNS, ...rest] : [...BASE_CALL_COLUMNS];
  return session.canReadCost ? [...base, ...COST_CALL_COLUMNS] : base;
}
