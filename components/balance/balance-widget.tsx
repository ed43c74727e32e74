"use client";

import { useQuery } from "@tanstack/react-query";
import type { Account, Balance } from "@/lib/billing/schemas";
import { LOW_BALANCE_MICROS, PROVIDER_HOLD_TEXT, balanceStatus } from "@/lib/portal/balance-status";
import { howToPayText, type HowToPay } from "@/lib/portal/how-to-pay";
import { formatAmount, toMicros } from "@/lib/portal/format";
import { accountKey, balanceKey } from "@/lib/portal/query-keys";
import { ApiProblem, apiGet } from "../api/api-client";
import { AccountSwitcher, type AccountChoice } from "@/components/portal/account-switcher";
import { Card as Panel, CardTitle } from "@/components/ui/card";
import { primaryButtonClass } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { LoadError as LoadFailure } from "@/components/ui/load-error";
import { Skeleton } from "@/components/ui/skeleton";

export type { AccountChoice };

/**
 * Balance of the session's billing group (GET /v1/balances), or for a platform session an account
 * switcher showing the chosen group (GET /v1/accounts/{id}). The choice lives in the URL
 * (`?account=`), so the server renders the dashboard's spend for the same account. The account is
 * named (`ownName`: the server's name of the session's own group); its id is on hover. `pay`: how this customer tops
 * up (lib/portal/payments.ts howToPay), said when the balance is low or the account disabled. The dashboard's server
 * render fills in the figure (lib/portal/first-screen.ts), so it is in the page's HTML.
 */
export function BalanceWidget({
  accounts,
  selected,
  ownName,
  pay = null,
}: {
  accounts?: AccountChoice[];
  selected?: string | null;
  ownName?: string;
  pay?: HowToPay | null;
}) {
  return accounts ? (
    <PlatformBalance accounts={accounts} selectedId={selected ?? null} />
  ) : (
    <OwnBalance name={ownName} pay={pay} />
  );
}

function Card({ children, title, action }: { children: React.ReactNode; title: string; action?: React.ReactNode }) {
  return (
    <Panel aria-labelledby="balance-title" data-testid="balance-widget">
      <CardTitle id="balance-title">{title}</CardTitle>
      {action ? <div className="mt-2">{action}</div> : null}
      {children}
    </Panel>
  );
}

function OwnBalance({ name, pay }: { name?: string; pay: HowToPay | null }) {
  const balance = useQuery({ queryKey: balanceKey, queryFn: ({ signal }) => apiGet<Balance>("/v1/balances", signal) });
  return (
    <Card title="Balance">
      {balance.isPending ? (
        <BalanceSkeleton />
      ) : balance.isError ? (
        <LoadError error={balance.error} onRetry={() => void balance.refetch()} />
      ) : (
        <BalanceFigure
          balance={balance.data.balance}
          currency={balance.data.currency}
          disabled={balance.data.disabled}
          providerOnHold={balance.data.providerOnHold ?? false}
          caption={{ id: balance.data.billingGroupId, name }}
          pay={pay}
        />
      )}
    </Card>
  );
}

function PlatformBalance({ accounts, selectedId }: { accounts: AccountChoice[]; selectedId: string | null }) {
  const account = useQuery({
    queryKey: accountKey(selectedId),
    queryFn: ({ signal }) => apiGet<Account>(`/v1/accounts/${encodeURIComponent(selectedId!)}`, signal),
    enabled: selectedId !== null,
  });

  const switcher = accounts.length ? <AccountSwitcher accounts={accounts} selected={selectedId} /> : null;

  return (
    <Card title="Account balance" action={switcher}>
      {accounts.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600">No billing groups exist yet.</p>
      ) : account.isError ? (
        <LoadError error={account.error} onRetry={() => void account.refetch()} />
      ) : !account.data ? (
        <BalanceSkeleton />
      ) : (
        <BalanceFigure
          balance={account.data.balance}
          currency={account.data.currency}
          disabled={account.data.disabled}
          caption={{ id: account.data.id, name: account.data.name }}
        />
      )}
    </Card>
  );
}

function BalanceFigure({
  balance,
  currency,
  disabled,
  providerOnHold = false,
  caption,
  pay = null,
}: {
  balance: number;
  currency: string;
  disabled: boolean;
  providerOnHold?: boolean;
  caption: { id: string; name?: string };
  pay?: HowToPay | null;
}) {
  const micros = toMicros(balance);
  const status = balanceStatus(micros, disabled, providerOnHold);
  return (
    <div className="mt-2">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <p
          className={`text-3xl font-semibold tabular-nums tracking-tight ${micros < 0n ? "text-red-700" : "text-slate-900"}`}
          data-testid="balance-amount"
        >
          {formatAmount(micros, currency)}
        </p>
        <span className="text-sm font-medium text-slate-600">{currency}</span>
        <span
          className={`rounded-full px-2 py-0.5 text-xs font-medium ${status === "disabled" || status === "held" ? "bg-red-100 text-red-800" : status === "low" ? "bg-amber-100 text-amber-800" : "bg-emerald-50 text-emerald-700"}`}
        >
          {status === "disabled"
            ? "Disabled"
            : status === "held"
              ? "Calls paused"
              : status === "low"
                ? "Low balance"
                : "Active"}
        </span>
      </div>
      {caption.name ? (
        <p className="mt-1 text-sm text-slate-700" title={caption.id} data-testid="balance-account">
          {caption.name}
        </p>
      ) : (
        <p className="mt-1 font-mono text-xs text-slate-600">{caption.id}</p>
      )}
      {status === "disabled" ? (
        <ErrorState className="mt-3">
          This account is disabled: new calls are refused.{" "}
          {pay === null
            ? "Staff top it up, or enable it, from the account's page in the console."
            : pay.kind === "card"
              ? `Top up to enable it again${pay.contact ? `, or contact ${pay.contact}` : ""}.`
              : howToPayText(pay)}
        </ErrorState>
      ) : status === "held" ? (
        <ErrorState className="mt-3">{PROVIDER_HOLD_TEXT}</ErrorState>
      ) : status === "low" ? (
        <ErrorState className="mt-3" tone="warning">
          The balance is below {formatAmount(LOW_BALANCE_MICROS, currency)}. Top up soon to keep calls flowing.
          {pay && pay.kind !== "card" ? ` ${howToPayText(pay)}` : null}
        </ErrorState>
      ) : null}
      {(status === "disabled" || status === "low") && pay?.kind === "card" ? (
        // The payments card's form, below this card: the button takes the customer straight to its amount.
        <a href="#topup-amount" className={`${primaryButtonClass({ compact: true })} mt-2 inline-block`}>
          Top up
        </a>
      ) : null}
    </div>
  );
}

function BalanceSkeleton() {
  return (
    <div className="mt-3 space-y-2" aria-hidden>
      <Skeleton className="h-8 w-40" />
      <Skeleton className="h-3 w-24" tone="bg-slate-100" />
    </div>
  );
}

function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <LoadFailure
      title="The balance could not be loaded"
      detail={error instanceof ApiProblem ? error.detail : undefined}
      onRetry={onRetry}
      compact
    />
  );
}
