import { Card, CardTitle } from "@/components/ui/card";
import { howToPayText, type HowToPay } from "@/lib/portal/how-to-pay";

/**
 * For a customer who cannot top up here: card payments are off (the quick start), or the role does not pay. Says how
 * money gets onto the account, with the operator's contact (OPERATOR_CONTACT) when set.
 */
export function HowToPayCard({ pay }: { pay: HowToPay }) {
  return (
    <Card aria-labelledby="how-to-pay-title" data-testid="how-to-pay">
      <CardTitle id="how-to-pay-title">How to pay</CardTitle>
      <p className="mt-2 text-sm text-slate-700">{howToPayText(pay)}</p>
    </Card>
  );
}
