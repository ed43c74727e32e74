import { Card } from "@/components/ui/card";
import type { AccountDetail } from "@/lib/billing/provisioning-schemas";
import { accountStatusText } from "@/lib/portal/balance-status";
import { formatAmount, toMicros } from "@/lib/portal/format";

/** An account's details on its console page. */
export function AccountSummary({ account }: { account: AccountDetail }) {
  const status = accountStatusText(account);
  const items: [string, string][] = [
    ["Id", account.id],
    ["Currency", account.currency],
    ["Balance", formatAmount(toMicros(account.balance), account.currency)],
    ["Credit limit", formatAmount(toMicros(account.creditLimit), account.currency)],
    ["Status", status],
    ["Accountcode", account.accountcode ?? "none"],
    ["Created", account.createdAt.slice(0, 10)],
  ];
  return (
    <Card aria-label="Account details">
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-4" data-testid="account-summary">
        {items.map(([label, value]) => (
          <div key={label}>
            <dt className="text-xs font-medium text-slate-500">{label}</dt>
            <dd className={label === "Id" ? "font-mono text-xs" : "font-medium"} data-field={label.toLowerCase()}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
