"use client";

import { AccountSwitcher, type AccountChoice } from "@/components/portal/account-switcher";
import { Card } from "@/components/ui/card";
import { ThresholdsCard } from "./thresholds-card";
import { WebhookEndpoints } from "./webhook-endpoints";

/**
 * The Alerts page: the account's low-balance thresholds and its webhook endpoints, each with its delivery log.
 * Everything goes through /v1 with the session cookie, as an API client would (docs/contract.md §18). A platform
 * session picks the account with the switcher the other staff pages have (`accounts`; none: platform-wide);
 * `names` are the account names in the session's reach.
 */
export function AlertsManager({
  account,
  platform,
  accounts,
  names,
}: {
  account: string | null;
  platform: boolean;
  accounts?: AccountChoice[];
  names: Record<string, string>;
}) {
  return (
    <div className="flex flex-col gap-4">
      {accounts ? (
        <Card className="max-w-md">
          <AccountSwitcher accounts={accounts} selected={account} none="None: platform-wide endpoints" showLabel />
        </Card>
      ) : null}
      {account ? (
        <ThresholdsCard key={account} account={account} platform={platform} name={names[account]} />
      ) : (
        <p className="text-sm text-slate-600">
          {accounts && accounts.length === 0
            ? "No accounts exist yet, so there are no low-balance thresholds to set."
            : "Pick an account above to set its low-balance thresholds."}
        </p>
      )}
      <WebhookEndpoints account={account} platform={platform} names={names} />
    </div>
  );
}
