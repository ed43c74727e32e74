/**
 * Which call log columns a session gets. Decided on the server from the session's scopes and
 * passed down: a session without calls:read_cost is never sent the cost columns' names at all.
 */
export const BASE_CALL_COLUMNS = ["startTime", "direction", "from", "to", "duration", "billDuration", "hangupCause", "price"] as const;
export const COST_CALL_COLUMNS = ["buyCost", "margin", "supplierId"] as const;

export type CallColumnId = (typeof BASE_CALL_COLUMNS)[number] | (typeof COST_CALL_COLUMNS)[number];

export function callColumnsFor(session: { canReadCost: boolean }): CallColumnId[] {
  return session.canReadCost ? [...BASE_CALL_COLUMNS, ...COST_CALL_COLUMNS] : [...BASE_CALL_COLUMNS];
}
