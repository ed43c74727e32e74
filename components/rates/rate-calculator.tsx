"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { Rate } from "@/lib/rating/schemas";
import {
  formatDuration,
  formatPercent,
  formatPhoneNumber,
  formatPrice,
  formatRate,
  toMicros,
} from "@/lib/portal/format";
import type { SupplierBuyRate } from "@/lib/portal/buy-rates";
import { buyRates } from "@/lib/portal/buy-rates-actions";
import { rateForAccount } from "@/lib/portal/account-rate-actions";
import type { CallCharge } from "@/lib/money/charge";
import { priceCall } from "@/lib/rating/billing-math";
import { isFromTheStart } from "@/lib/rating/deck-review";
import { incrementTextSchema } from "@/lib/rating/schemas";
import { ApiProblem, apiGet } from "../api/api-client";
import type { AccountChoice } from "../balance/balance-widget";
import { Card } from "@/components/ui/card";
import { primaryButtonClass } from "@/components/ui/button";
import { LoadError } from "@/components/ui/load-error";
import { Skeleton } from "@/components/ui/skeleton";
import { inputClass as uiInputClass } from "@/components/ui/field";
import { dialledNumber } from "@/lib/portal/dialled-number";

const DESTINATION = /^\+?\d{1,32}$/;
const inputClass = `mt-1 ${uiInputClass({ roomy: true })}`;

/**
 * Looks the destination up with GET /v1/rates and prices a call of the given length in the
 * browser with the server's own billing arithmetic (lib/rating/billing-math), so the preview
 * matches what the call would be charged to the micro.
 */
export function RateCalculator({
  initialDestination = "",
  initialSeconds = 60,
  accounts,
  initialAccount,
  canReadCost = false,
}: {
  initialDestination?: string;
  initialSeconds?: number;
  /** Platform sessions: the accounts whose rate cards may be looked up. */
  accounts?: AccountChoice[];
  initialAccount?: string;
  /** Cost sessions also see each supplier's buy rate and the margin of the call. */
  canReadCost?: boolean;
}) {
  const id = useId();
  const [destinationText, setDestinationText] = useState(initialDestination);
  const [secondsText, setSecondsText] = useState(String(initialSeconds));
  const [account, setAccount] = useState(
    accounts ? (accounts.find((a) => a.id === initialAccount)?.id ?? accounts[0]?.id ?? "") : "",
  );
  const [submitted, setSubmitted] = useState(
    DESTINATION.test(dialledNumber(initialDestination)) && (!accounts || account)
      ? { destination: dialledNumber(initialDestination), account }
      : null,
  );
  const [touched, setTouched] = useState(false);

  // What a person pasted, separators and all ("+44 20 7946 0000"), is looked up as its digits.
  const destination = dialledNumber(destinationText);
  const destinationValid = DESTINATION.test(destination);
  const showDestinationError = !destinationValid && (touched || destinationText !== "");
  const seconds = /^\d{1,6}$/.test(secondsText) ? Number(secondsText) : null;
  // A result belongs to the inputs it was looked up for: once they change (or turn invalid) it is stale.
  const current =
    submitted !== null && submitted.destination === destination && submitted.account === account && seconds !== null;

  const rate = useQuery({
    queryKey: ["rate", submitted?.account ?? "", submitted?.destination ?? ""],
    queryFn: async ({ signal }) => {
      if (!accounts) return apiGet<Rate>(`/v1/rates?destination=${encodeURIComponent(submitted!.destination)}`, signal);
      const answer = await rateForAccount({ account: submitted!.account, destination: submitted!.destination });
      if (!answer.ok) throw new ApiProblem(answer.code === "no_rate" ? 404 : 400, answer.code, answer.detail);
      return answer.rate;
    },
    enabled: submitted !== null,
    staleTime: 5 * 60_000,
  });

  const buy = useQuery({
    queryKey: ["buy-rates", submitted?.destination ?? ""],
    queryFn: async () => {
      const answer = await buyRates({ destination: submitted!.destination });
      if (!answer.ok) throw new ApiProblem(400, answer.code, answer.detail);
      return answer.rates;
    },
    enabled: canReadCost && submitted !== null,
    staleTime: 5 * 60_000,
  });

  const syncUrl = (destination: string, secs: string, acct: string) => {
    const params = new URLSearchParams(window.location.search);
    params.set("destination", destination);
    params.set("seconds", secs);
    if (acct) params.set("account", acct);
    window.history.replaceState(null, "", `${window.location.pathname}?${params}`);
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[22rem_1fr]">
      <Card
        as="form"
        aria-label="Rate calculator"
        onSubmit={(e: React.FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (!destinationValid || seconds === null || (accounts && !account)) return;
          setSubmitted({ destination, account });
          syncUrl(destination, secondsText, account);
        }}
      >
        <div className="space-y-4">
          {accounts ? (
            <div>
              <label htmlFor={`${id}-account`} className="block text-sm font-medium text-slate-700">
                Account
              </label>
              <select
                id={`${id}-account`}
                name="account"
                value={account}
                onChange={(e) => {
                  setAccount(e.target.value);
                  // The account chosen here is the one the other pages follow (?account= in the URL).
                  const params = new URLSearchParams(window.location.search);
                  params.set("account", e.target.value);
                  window.history.replaceState(null, "", `${window.location.pathname}?${params}`);
                }}
                className={inputClass}
              >
                {accounts.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name} ({a.currency})
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div>
            <label htmlFor={`${id}-destination`} className="block text-sm font-medium text-slate-700">
              Destination number
            </label>
            <input
              id={`${id}-destination`}
              name="destination"
              inputMode="tel"
              autoComplete="off"
              placeholder="+442071234567"
              value={destinationText}
              onChange={(e) => setDestinationText(e.target.value.trim())}
              aria-invalid={showDestinationError}
              aria-describedby={`${id}-destination-help`}
              className={`${inputClass} font-mono`}
            />
            <p
              id={`${id}-destination-help`}
              className={`mt-1 text-xs ${showDestinationError ? "text-red-700" : "text-slate-600"}`}
            >
              Full number with country code, optionally starting with +; spaces, dashes, dots and brackets are fine.
            </p>
          </div>
          <div>
            <label htmlFor={`${id}-seconds`} className="block text-sm font-medium text-slate-700">
              Call duration (seconds answered)
            </label>
            <input
              id={`${id}-seconds`}
              name="seconds"
              type="number"
              min={0}
              max={999999}
              step={1}
              inputMode="numeric"
              value={secondsText}
              onChange={(e) => {
                setSecondsText(e.target.value);
                if (submitted && /^\d{1,6}$/.test(e.target.value))
                  syncUrl(submitted.destination, e.target.value, submitted.account);
              }}
              aria-invalid={seconds === null}
              aria-describedby={`${id}-seconds-help`}
              className={`${inputClass} tabular-nums`}
            />
            <p
              id={`${id}-seconds-help`}
              className={`mt-1 text-xs ${seconds === null ? "text-red-700" : "text-slate-600"}`}
            >
              {seconds === null ? "A whole number of seconds, 0 or more." : `${formatDuration(seconds)} of talk time.`}
            </p>
          </div>
          <button type="submit" className={primaryButtonClass({ block: true })}>
            Look up rate
          </button>
        </div>
      </Card>

      <Card aria-live="polite" aria-label="Rate and cost" data-testid="rate-result">
        {submitted === null ? (
          <p className="text-sm text-slate-600">
            Enter a destination to see the rate that applies and what a call of that length costs.
          </p>
        ) : !current ? (
          <p className="text-sm text-slate-600" data-testid="rate-stale">
            {!destinationValid || seconds === null
              ? "Correct the highlighted field to see a rate."
              : "The inputs changed: press “Look up rate” for the rate and cost of this call."}
          </p>
        ) : rate.isPending ? (
          <div className="space-y-3" aria-hidden>
            <Skeleton className="h-4 w-48" />
            <Skeleton className="h-8 w-32" />
          </div>
        ) : rate.isError ? (
          <RateError error={rate.error} destination={submitted.destination} onRetry={() => void rate.refetch()} />
        ) : (
          <RateResult
            rate={rate.data}
            seconds={seconds}
            buy={canReadCost ? { rates: buy.data, pending: buy.isPending, error: buy.error } : null}
          />
        )}
      </Card>
    </div>
  );
}

function RateError({ error, destination, onRetry }: { error: unknown; destination: string; onRetry: () => void }) {
  if (error instanceof ApiProblem && error.code === "no_rate") {
    return (
      <div role="alert" data-testid="no-rate">
        <p className="font-medium text-slate-900">No rate for {formatPhoneNumber(destination)}</p>
        <p className="mt-1 text-sm text-slate-600">
          No prefix of this number is in your rate card, so calls to it cannot be rated. Check the country code, or ask
          us to add the destination.
        </p>
      </div>
    );
  }
  return (
    <LoadError
      title="The rate could not be looked up"
      detail={error instanceof ApiProblem ? error.detail : "The network request failed."}
      onRetry={onRetry}
      compact
    />
  );
}

function Figure({ label, children, testId }: { label: string; children: React.ReactNode; testId: string }) {
  return (
    <div className="rounded-lg bg-slate-50 px-4 py-3">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</dt>
      <dd className="mt-1 text-lg font-semibold tabular-nums" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function chargeOf(
  rate: { rate: number; billingIncrement: string; connectFee: number | null; minCharge: number | null },
  seconds: number | null,
): CallCharge | null {
  const increment = incrementTextSchema.safeParse(rate.billingIncrement);
  if (!increment.success || seconds === null) return null;
  return priceCall(toMicros(rate.rate), increment.data, seconds, {
    connectFeeMicros: rate.connectFee === null ? null : toMicros(rate.connectFee),
    minChargeMicros: rate.minCharge === null ? null : toMicros(rate.minCharge),
  });
}

interface BuySide {
  rates: SupplierBuyRate[] | undefined;
  pending: boolean;
  error: unknown;
}

function RateResult({ rate, seconds, buy }: { rate: Rate; seconds: number | null; buy: BuySide | null }) {
  const increment = incrementTextSchema.safeParse(rate.billingIncrement);
  const rateMicros = toMicros(rate.sellRate);
  const connectFee = rate.connectFee === null ? null : toMicros(rate.connectFee);
  const minCharge = rate.minCharge === null ? null : toMicros(rate.minCharge);
  const charge = chargeOf({ ...rate, rate: rate.sellRate }, seconds);
  return (
    <div>
      <p className="text-sm text-slate-600" data-testid="rate-destination">
        <span className="font-mono">{formatPhoneNumber(rate.destination)}</span>
        {rate.description ? (
          <>
            {" "}
            is <span className="font-semibold text-slate-900">{rate.description}</span>:
          </>
        ) : null}{" "}
        matches prefix <span className="font-mono font-semibold text-slate-900">{rate.matchedPrefix}</span>
      </p>
      <dl className="mt-4 grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
        <Figure label="Matched prefix" testId="rate-prefix">
          <span className="font-mono">{rate.matchedPrefix}</span>
        </Figure>
        <Figure label={buy ? "Sell rate" : "Rate"} testId="rate-sell">
          {formatRate(rateMicros, rate.currency)}
        </Figure>
        <Figure label="Billing increment" testId="rate-increment">
          {rate.billingIncrement}
          {increment.success ? (
            <span className="block text-xs font-normal text-slate-600">
              {increment.data.min} s minimum, then per {increment.data.interval} s
            </span>
          ) : null}
        </Figure>
        <Figure label="Billable seconds" testId="rate-billable">
          {charge ? charge.billableSeconds : "—"}
        </Figure>
        {connectFee !== null ? (
          <Figure label="Connect fee" testId="rate-connect-fee">
            {formatPrice(connectFee, rate.currency)}
          </Figure>
        ) : null}
        {minCharge !== null ? (
          <Figure label="Minimum charge" testId="rate-min-charge">
            {formatPrice(minCharge, rate.currency)}
          </Figure>
        ) : null}
        <Figure label={buy ? "Revenue of this call" : "Cost of this call"} testId="rate-cost">
          {charge ? formatPrice(charge.micros, rate.currency) : "—"}
        </Figure>
      </dl>
      {/* The parts, as billing-math computes them: max(minimum, connect fee + per-minute part). */}
      {charge && charge.billableSeconds > 0 && (connectFee !== null || minCharge !== null) ? (
        <p className="mt-3 text-xs text-slate-600" data-testid="rate-cost-parts">
          {charge.minChargeApplied
            ? `Minimum charge: the per-minute part ${formatPrice(charge.usageMicros, rate.currency)} + connect fee ${formatPrice(charge.connectFeeMicros, rate.currency)} is less.`
            : `Per-minute part ${formatPrice(charge.usageMicros, rate.currency)} + connect fee ${formatPrice(charge.connectFeeMicros, rate.currency)}.`}
        </p>
      ) : null}
      <p className="mt-3 text-xs text-slate-600" data-testid="rate-effective-from">
        {isFromTheStart(rate.effectiveFrom)
          ? "Rate card in force since the account opened."
          : `Rate card in force since ${rate.effectiveFrom.slice(0, 10)} (UTC).`}
      </p>
      {seconds === 0 ? <p className="mt-3 text-xs text-slate-600">Unanswered calls are not charged.</p> : null}
      {buy ? <BuyRates buy={buy} sell={charge} currency={rate.currency} seconds={seconds} /> : null}
    </div>
  );
}

/** Each supplier's buy rate now, what this call would cost with it, and the margin left (cost sessions). */
function BuyRates({
  buy,
  sell,
  currency,
  seconds,
}: {
  buy: BuySide;
  sell: CallCharge | null;
  currency: string;
  seconds: number | null;
}) {
  return (
    <section className="mt-5 border-t border-slate-200 pt-4" aria-labelledby="buy-rates-title" data-testid="buy-rates">
      <h3 id="buy-rates-title" className="text-sm font-semibold text-slate-900">
        Buy rates and margin
      </h3>
      {buy.pending ? (
        <Skeleton className="mt-3 h-4 w-64" />
      ) : buy.error || !buy.rates ? (
        <p className="mt-2 text-sm text-red-800" role="alert">
          {buy.error instanceof ApiProblem ? buy.error.detail : "The buy rates could not be looked up."}
        </p>
      ) : buy.rates.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">No supplier has a rate for this destination.</p>
      ) : (
        <div className="mt-2 overflow-x-auto" role="region" aria-label="Buy rates" tabIndex={0}>
          <table className="w-full min-w-[32rem] text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-600">
                <th scope="col" className="py-2 pr-3 font-semibold">
                  Supplier
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  Buy rate
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  Buy cost of this call
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold">
                  Margin
                </th>
                <th scope="col" className="py-2 pl-3 text-right font-semibold">
                  Margin %
                </th>
              </tr>
            </thead>
            <tbody>
              {buy.rates.map((r) => {
                const cost = chargeOf({ ...r, rate: r.buyRate }, seconds);
                const margin = sell && cost ? sell.micros - cost.micros : null;
                return (
                  <tr key={r.supplierId} className="border-b border-slate-100 last:border-0" data-testid="buy-rate-row">
                    <td className="py-2 pr-3">
                      {r.supplierName} <span className="font-mono text-xs text-slate-600">({r.matchedPrefix})</span>
                    </td>
                    <td className="num px-3 py-2" data-testid="buy-rate">
                      {formatRate(toMicros(r.buyRate), currency)}
                      <span className="block text-xs text-slate-600">{r.billingIncrement}</span>
                    </td>
                    <td className="num px-3 py-2" data-testid="buy-cost">
                      {cost ? formatPrice(cost.micros, currency) : "—"}
                    </td>
                    <td
                      className={`num px-3 py-2 ${margin !== null && margin < 0n ? "text-red-700" : ""}`}
                      data-testid="buy-margin"
                    >
                      {margin === null ? "—" : formatPrice(margin, currency)}
                      {margin !== null && margin < 0n ? <span className="sr-only"> (loss)</span> : null}
                    </td>
                    <td className="num py-2 pl-3">
                      {margin === null || !sell ? "—" : (formatPercent(margin, sell.micros) ?? "—")}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
