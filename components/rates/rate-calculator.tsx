"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { Rate } from "@/lib/rating/schemas";
import { rateForAccount } from "@/lib/portal/account-rate-actions";
import { formatDuration, formatPrice, formatRate, toMicros } from "@/lib/portal/format";
import { priceCall } from "@/lib/rating/billing-math";
import { incrementTextSchema } from "@/lib/rating/schemas";
import { ApiProblem, apiGet } from "../api/api-client";
import type { AccountChoice } from "../balance/balance-widget";
import { cardClass } from "@/components/ui/card";
import { primaryButtonClass } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { inputClass as uiInputClass } from "@/components/ui/field";

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
}: {
  initialDestination?: string;
  initialSeconds?: number;
  /** Platform sessions: the accounts whose rate cards may be looked up. */
  accounts?: AccountChoice[];
  initialAccount?: string;
}) {
  const id = useId();
  const [destinationText, setDestinationText] = useState(initialDestination);
  const [secondsText, setSecondsText] = useState(String(initialSeconds));
  const [account, setAccount] = useState(
    accounts ? (accounts.find((a) => a.id === initialAccount)?.id ?? accounts[0]?.id ?? "") : "",
  );
  const [submitted, setSubmitted] = useState(
    DESTINATION.test(initialDestination) && (!accounts || account)
      ? { destination: initialDestination, account }
      : null,
  );
  const [touched, setTouched] = useState(false);

  const destinationValid = DESTINATION.test(destinationText);
  const showDestinationError = !destinationValid && (touched || destinationText !== "");
  const seconds = /^\d{1,6}$/.test(secondsText) ? Number(secondsText) : null;
  // A result belongs to the inputs it was looked up for: once they change (or turn invalid) it is stale.
  const current =
    submitted !== null &&
    submitted.destination === destinationText &&
    submitted.account === account &&
    seconds !== null;

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

  const syncUrl = (destination: string, secs: string, acct: string) => {
    const params = new URLSearchParams(window.location.search);
    params.set("destination", destination);
    params.set("seconds", secs);
    if (acct) params.set("account", acct);
    window.history.replaceState(null, "", `${window.location.pathname}?${params}`);
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[22rem_1fr]">
      <form
        className={cardClass}
        aria-label="Rate calculator"
        onSubmit={(e) => {
          e.preventDefault();
          setTouched(true);
          if (!destinationValid || seconds === null || (accounts && !account)) return;
          setSubmitted({ destination: destinationText, account });
          syncUrl(destinationText, secondsText, account);
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
                onChange={(e) => setAccount(e.target.value)}
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
              Full number with country code: digits, optionally starting with +.
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
      </form>

      <section aria-live="polite" aria-label="Rate and cost" className={cardClass} data-testid="rate-result">
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
          <RateResult rate={rate.data} seconds={seconds} />
        )}
      </section>
    </div>
  );
}

function RateError({ error, destination, onRetry }: { error: unknown; destination: string; onRetry: () => void }) {
  if (error instanceof ApiProblem && error.code === "no_rate") {
    return (
      <div role="alert" data-testid="no-rate">
        <p className="font-medium text-slate-900">No rate for {destination}</p>
        <p className="mt-1 text-sm text-slate-600">
          No prefix of this number is in your rate card, so calls to it cannot be rated. Check the country code, or ask
          us to add the destination.
        </p>
      </div>
    );
  }
  return (
    <div role="alert">
      <p className="font-medium text-red-800">The rate could not be looked up</p>
      <p className="mt-1 text-sm text-slate-600">
        {error instanceof ApiProblem ? error.detail : "The network request failed."}
      </p>
      <button type="button" onClick={onRetry} className="mt-3 rounded-lg bg-slate-900 px-3 py-1.5 text-sm text-white">
        Retry
      </button>
    </div>
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

function RateResult({ rate, seconds }: { rate: Rate; seconds: number | null }) {
  const increment = incrementTextSchema.safeParse(rate.billingIncrement);
  const rateMicros = toMicros(rate.sellRate);
  const connectFee = rate.connectFee === null ? null : toMicros(rate.connectFee);
  const minCharge = rate.minCharge === null ? null : toMicros(rate.minCharge);
  const charge =
    increment.success && seconds !== null
      ? priceCall(rateMicros, increment.data, seconds, { connectFeeMicros: connectFee, minChargeMicros: minCharge })
      : null;
  return (
    <div>
      <p className="text-sm text-slate-600">
        <span className="font-mono">{rate.destination}</span> matches prefix{" "}
        <span className="font-mono font-semibold text-slate-900">{rate.matchedPrefix}</span>
      </p>
      <dl className="mt-4 grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
        <Figure label="Matched prefix" testId="rate-prefix">
          <span className="font-mono">{rate.matchedPrefix}</span>
        </Figure>
        <Figure label="Sell rate" testId="rate-sell">
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
        <Figure label="Cost of this call" testId="rate-cost">
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
      {Date.parse(rate.effectiveFrom) > 0 ? (
        <p className="mt-3 text-xs text-slate-600" data-testid="rate-effective-from">
          Rate card in force since {rate.effectiveFrom.slice(0, 10)} (UTC).
        </p>
      ) : null}
      {seconds === 0 ? <p className="mt-3 text-xs text-slate-600">Unanswered calls are not charged.</p> : null}
    </div>
  );
}
