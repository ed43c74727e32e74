import { Card, CardTitle } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { fieldLabelClass, inputClass } from "@/components/ui/field";
import { primaryButtonClass, secondaryButtonClass } from "@/components/ui/button";
import type { PaymentsPanel } from "@/lib/portal/payments";
import { autoRechargeAction, topUpAction } from "@/lib/portal/payments-actions";

export interface PaymentsNotice {
  topup?: string;
  payment?: string;
  message?: string;
}

function Notice({ notice }: { notice: PaymentsNotice }) {
  if (notice.payment === "error")
    return <ErrorState className="mt-3">{notice.message ?? "That was refused."}</ErrorState>;
  const done =
    notice.topup === "success"
      ? "Thank you. The balance is credited as soon as the payment provider confirms the payment."
      : notice.topup === "cancelled"
        ? "The payment was cancelled; nothing was charged."
        : notice.payment === "auto-recharge-saved"
          ? "Auto-recharge saved."
          : null;
  return done ? (
    <p role="status" className="mt-3 rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
      {done}
    </p>
  ) : null;
}

/** Top up by card (the provider's hosted checkout) and auto-recharge, for owner and billing members. */
export function PaymentsCard({ panel, notice }: { panel: PaymentsPanel; notice: PaymentsNotice }) {
  return (
    <Card aria-labelledby="payments-title" data-testid="payments-card">
      <CardTitle id="payments-title">Top up</CardTitle>
      <Notice notice={notice} />
      <form action={topUpAction} className="mt-3 flex items-end gap-2" aria-label="Top up by card">
        <div className="flex-1">
          <label htmlFor="topup-amount" className={fieldLabelClass}>
            Amount ({panel.currency}, {panel.min} to {panel.max})
          </label>
          <input
            id="topup-amount"
            name="amount"
            type="number"
            inputMode="decimal"
            required
            min={panel.min}
            max={panel.max}
            step={panel.step}
            className={inputClass()}
          />
        </div>
        <button type="submit" className={primaryButtonClass({ compact: true })}>
          Pay by card
        </button>
      </form>
      <form action={autoRechargeAction} className="mt-4 border-t border-slate-200 pt-3" aria-label="Auto-recharge">
        <label className="flex items-center gap-2 text-sm font-medium text-slate-700">
          <input type="checkbox" name="enabled" defaultChecked={panel.autoRecharge !== null} />
          Auto-recharge the saved card
        </label>
        <div className="mt-2 grid grid-cols-2 gap-2">
          <div>
            <label htmlFor="recharge-threshold" className={fieldLabelClass}>
              When the balance falls below
            </label>
            <input
              id="recharge-threshold"
              name="threshold"
              type="number"
              step={panel.step}
              defaultValue={panel.autoRecharge?.threshold ?? ""}
              className={inputClass()}
            />
          </div>
          <div>
            <label htmlFor="recharge-amount" className={fieldLabelClass}>
              Charge ({panel.currency})
            </label>
            <input
              id="recharge-amount"
              name="amount"
              type="number"
              min={panel.min}
              max={panel.max}
              step={panel.step}
              defaultValue={panel.autoRecharge?.amount ?? ""}
              className={inputClass()}
            />
          </div>
        </div>
        <p className="mt-2 text-xs text-slate-600">
          {panel.cardSaved
            ? "A card is saved from your last top-up."
            : "No card saved yet: a top-up by card saves it for auto-recharge."}
          {panel.lastCharge
            ? ` Last auto-recharge: ${panel.lastCharge.amount} ${panel.currency}, ${panel.lastCharge.status}${panel.lastCharge.error ? ` (${panel.lastCharge.error})` : ""}.`
            : ""}
        </p>
        <button type="submit" className={`${secondaryButtonClass} mt-2`}>
          Save auto-recharge
        </button>
      </form>
    </Card>
  );
}
