// How a customer pays, said wherever the portal asks for money (the balance widget's disabled and low-balance
// notices, the dashboard's "How to pay" card). Client-safe: pure data and text, no imports.

/**
 * `card`: this person tops up here (the payments card). `member`: card payments are on, but this role cannot pay (an
 * owner or billing member can). `contact`: card payments are not set up. `contact` (these kinds): the operator's
 * (OPERATOR_CONTACT), null when unset. `reseller`: a reseller's customer, topped up by its reseller (named).
 */
export type HowToPay =
  | { kind: "card" | "member" | "contact"; contact: string | null }
  /** A reseller's customer: its reseller (by name) tops it up; card payments here are the operator's. */
  | { kind: "reseller"; contact: string };

/** The sentence that says how to get money onto the account (beside the top-up button `card` shows). */
export function howToPayText(pay: HowToPay): string {
  if (pay.kind === "reseller")
    return `Your account is topped up by ${pay.contact}, who bills it: contact them to add money.`;
  if (pay.kind === "card") return `Top up by card${pay.contact ? `, or contact ${pay.contact}` : ""}.`;
  const contact = pay.contact ? `contact ${pay.contact}` : "contact the operator of this service";
  if (pay.kind === "member")
    return `An owner or billing member of your organization tops up by card here; or ${contact}.`;
  return `Card payments are not set up here: to top up, ${contact}.`;
}
