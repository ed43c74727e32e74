"use client";

import { ThresholdsCard } from "./thresholds-card";
import { WebhookEndpoints } from "./webhook-endpoints";

/**
 * The Alerts page: the account's low-balance thresholds and its webhook endpoints, each with its delivery log.
 * Everything goes through /v1 with the session cookie, as an API client would (docs/contract.md §18).
 */
export function AlertsManager({ account, platform }: { account: string | null; platform: boolean }) {
  return (
    <div className="flex flex-col gap-4">
      {account ? (
        <ThresholdsCard account={account} platform={platform} />
      ) : (
        <p className="text-sm text-slate-600">Pick an account to set its low-balance thresholds.</p>
      )}
      <WebhookEndpoints account={account} platform={platform} />
    </div>
  );
}
