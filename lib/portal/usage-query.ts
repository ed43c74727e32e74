/**
 * The GET /v1/usage query that totals what a GET /v1/calls query lists, or null when the listing
 * uses a filter the usage report does not take (caller, id or uuid search, destination prefix):
 * totals of a wider set than the list shows would mislead.
 */
const SHARED = ["startTime[gte]", "startTime[lte]", "direction", "to", "hangupCause", "supplierId"] as const;
const UNSUPPORTED = ["from", "id", "uuid", "toPrefix"] as const;

export function usageQueryFromCallQuery(calls: URLSearchParams, groupBy = "direction"): URLSearchParams | null {
  if (UNSUPPORTED.some((name) => calls.has(name))) return null;
  const usage = new URLSearchParams({ groupBy });
  for (const name of SHARED) {
    const value = calls.get(name);
    if (value) usage.set(name, value);
  }
  const account = calls.get("billingGroupId");
  if (account) usage.set("account", account);
  return usage;
}
