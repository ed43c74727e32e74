"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";
import type { AccountDetail, BalanceMovement } from "@/lib/billing/provisioning-schemas";
import { formatAmount, formatPrice, toMicros } from "@/lib/portal/format";
import { newIdempotencyKey, ProvisioningProblem, sendProvisioning } from "./provisioning-request";

function problemOf(error: unknown): ProvisioningProblem {
  return error instanceof ProvisioningProblem
    ? error
    : new ProvisioningProblem(0, "The request failed. Try again.", {});
}

/** One form's state: its Idempotency-Key (kept until a change lands), pending, the last problem and success note. */
function useChange() {
  const router = useRouter();
  const [key, setKey] = useState(newIdempotencyKey);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ProvisioningProblem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (change: (idempotencyKey: string) => Promise<string>) => {
    if (pending) return;
    setPending(true);
    setProblem(null);
    setDone(null);
    try {
      setDone(await change(key));
      setKey(newIdempotencyKey());
      router.refresh();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setPending(false);
    }
  };
  return { run, pending, problem, done };
}

function Feedback({ problem, done, id }: { problem: ProvisioningProblem | null; done: string | null; id: string }) {
  return (
    <div aria-live="polite" id={id}>
      {problem ? (
        <p role="alert" className="text-sm text-red-700">
          {problem.message}
        </p>
      ) : done ? (
        <p className="text-sm text-emerald-700" data-testid="change-done">
          {done}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A labelled text input with its error under it (aria-invalid and aria-describedby follow the error): the one input
 * of every console form.
 */
function TextField({
  id,
  name,
  label,
  value,
  onChange,
  error,
  required,
  decimal,
  placeholder,
}: {
  id: string;
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  required?: boolean;
  decimal?: boolean;
  placeholder?: string;
}) {
  return (
    <Field id={id} label={label}>
      <input
        id={id}
        name={name}
        inputMode={decimal ? "decimal" : undefined}
        required={required}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? fieldErrorId(id) : undefined}
        className={inputClass({ invalid: Boolean(error) })}
      />
      {error ? <FieldError id={fieldErrorId(id)}>{error}</FieldError> : null}
    </Field>
  );
}

/**
 * Top-up (positive) or adjustment (signed, with its reason): decimal text, exact to 6 decimals on the server. With a
 * `funder` (a reseller's console) the money comes from the reseller's own balance, and a 402 says how much it has.
 */
export function BalanceForm({
  account,
  kind,
  funder = null,
}: {
  account: AccountDetail;
  kind: "topup" | "adjustment";
  /** The reseller's own account and what it may still move (its headroom: the API's test). */
  funder?: (AccountDetail & { available: number }) | null;
}) {
  const id = useId();
  const change = useChange();
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const title = kind === "topup" ? "Top up" : "Adjust balance";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void change.run(async (idempotencyKey) => {
      const path = `/v1/accounts/${encodeURIComponent(account.id)}/${kind === "topup" ? "top-ups" : "adjustments"}`;
      const body =
        kind === "topup" ? { amount, ...(reason ? { description: reason } : {}) } : { amount, description: reason };
      const moved = await sendProvisioning<BalanceMovement>("POST", path, body, idempotencyKey);
      setAmount("");
      setReason("");
      // As the account's card shows it: the balance in the currency's minor units, the amount exact.
      const { currency } = account;
      return `${kind === "topup" ? "Topped up" : "Adjusted by"} ${formatPrice(toMicros(moved.amount), currency)}: the balance is ${formatAmount(toMicros(moved.account.balance), currency)}.`;
    });
  };
  const insufficient = funder !== null && change.problem?.code === "insufficient_funds";
  const amountError = insufficient
    ? `More than you have: ${formatPrice(toMicros(funder.available), funder.currency)} available (your balance plus your credit limit, less what calls in progress hold). Nothing moved. Top up your own account, or move less.`
    : change.problem?.fields.amount;
  const reasonError = change.problem?.fields.description;
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardTitle id={`${id}-title`}>{title}</CardTitle>
      {funder ? (
        <p className="mt-1 text-sm text-slate-600" data-testid={`${kind}-funder`}>
          {kind === "topup" ? "Comes out of" : "A positive amount comes out of, a negative one goes back to"} your own
          balance ({funder.name}): {formatPrice(toMicros(funder.available), funder.currency)} available.
        </p>
      ) : null}
      <form onSubmit={submit} className="mt-3 flex flex-col gap-3" data-testid={`${kind}-form`}>
        <TextField
          id={`${id}-amount`}
          name="amount"
          label={`Amount (${account.currency}${kind === "adjustment" ? ", negative to lower" : ""})`}
          value={amount}
          onChange={setAmount}
          error={amountError}
          required
          decimal
          placeholder={kind === "topup" ? "25.00" : "-1.50"}
        />
        <TextField
          id={`${id}-reason`}
          name="description"
          label={kind === "topup" ? "Reference (optional)" : "Reason"}
          value={reason}
          onChange={setReason}
          error={reasonError}
          required={kind === "adjustment"}
          placeholder={kind === "topup" ? "Wire 42" : "Refund of a duplicate call"}
        />
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={change.pending}>
            {change.pending ? "Saving…" : title}
          </Button>
          <Feedback problem={insufficient ? null : change.problem} done={change.done} id={`${id}-feedback`} />
          {/* The refusal is said under the amount; announced here too, as the other refusals are. */}
          {insufficient ? (
            <p role="alert" className="sr-only">
              Refused: the amount is more than your balance plus your credit limit, less what calls in progress hold.
              Nothing moved.
            </p>
          ) : null}
        </div>
      </form>
    </Card>
  );
}

/** The credit limit: how far below zero the balance may go before calls are refused. */
export function CreditLimitForm({ account }: { account: AccountDetail }) {
  const id = useId();
  const change = useChange();
  const [limit, setLimit] = useState(String(account.creditLimit));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void change.run(async (idempotencyKey) => {
      const after = await sendProvisioning<AccountDetail>(
        "PATCH",
        `/v1/accounts/${encodeURIComponent(account.id)}`,
        { creditLimit: limit },
        idempotencyKey,
      );
      return `The credit limit is ${formatAmount(toMicros(after.creditLimit), account.currency)}.`;
    });
  };
  const limitError = change.problem?.fields.creditLimit;
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardTitle id={`${id}-title`}>Credit limit</CardTitle>
      <form onSubmit={submit} className="mt-3 flex flex-col gap-3" data-testid="credit-limit-form">
        <TextField
          id={`${id}-limit`}
          name="creditLimit"
          label={`Credit limit (${account.currency})`}
          value={limit}
          onChange={setLimit}
          error={limitError}
          required
          decimal
        />
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={change.pending}>
            {change.pending ? "Saving…" : "Save credit limit"}
          </Button>
          <Feedback problem={change.problem} done={change.done} id={`${id}-feedback`} />
        </div>
      </form>
    </Card>
  );
}

/** Disable (calls refused whatever the balance) or enable the account, after a confirmation. */
export function DisableToggle({ account }: { account: AccountDetail }) {
  const id = useId();
  const change = useChange();
  const [confirming, setConfirming] = useState(false);
  const disable = !account.disabledByOperator;
  const confirm = () =>
    void change.run(async (idempotencyKey) => {
      const after = await sendProvisioning<AccountDetail>(
        "PATCH",
        `/v1/accounts/${encodeURIComponent(account.id)}`,
        { disabled: disable },
        idempotencyKey,
      );
      setConfirming(false);
      return after.disabledByOperator ? "The account is disabled." : "The account is enabled.";
    });
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardTitle id={`${id}-title`}>{disable ? "Disable the account" : "Enable the account"}</CardTitle>
      <p className="mt-1 text-sm text-slate-600">
        {disable
          ? "A disabled account's calls are refused, whatever its balance."
          : "An operator disabled this account. Enabled, its calls are allowed again while its balance is above the credit limit."}
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        {confirming ? (
          <div role="group" aria-label="Confirm" className="flex flex-wrap items-center gap-2">
            <span className="text-sm font-medium">
              {disable ? `Disable ${account.name}?` : `Enable ${account.name}?`}
            </span>
            <Button variant="primary" onClick={confirm} disabled={change.pending}>
              {disable ? "Yes, disable" : "Yes, enable"}
            </Button>
            <Button onClick={() => setConfirming(false)}>Cancel</Button>
          </div>
        ) : (
          <Button onClick={() => setConfirming(true)}>{disable ? "Disable…" : "Enable…"}</Button>
        )}
        <Feedback problem={change.problem} done={change.done} id={`${id}-feedback`} />
      </div>
    </Card>
  );
}

/** A currency an account may be opened in, with its English name (read on the server: one list for both sides). */
export interface CurrencyChoice {
  code: string;
  name: string;
}

/** The account's currency: a choice from the current ISO 4217 codes, none preselected. */
function CurrencySelect({
  id,
  value,
  onChange,
  currencies,
  error,
}: {
  id: string;
  value: string;
  onChange: (e: { target: { value: string } }) => void;
  currencies: readonly CurrencyChoice[];
  error?: string;
}) {
  return (
    <Field id={id} label="Currency (fixed for the account's life)">
      <select
        id={id}
        name="currency"
        value={value}
        onChange={onChange}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? fieldErrorId(id) : undefined}
        className={inputClass({ invalid: Boolean(error) })}
      >
        <option value="">Choose a currency…</option>
        {currencies.map((c) => (
          <option key={c.code} value={c.code}>
            {c.code} · {c.name}
          </option>
        ))}
      </select>
      {error ? <FieldError id={fieldErrorId(id)}>{error}</FieldError> : null}
    </Field>
  );
}

/** A new billing group: name, currency, and optionally a credit limit, an accountcode and an opening balance. */
export function NewAccountForm({ currencies }: { currencies: readonly CurrencyChoice[] }) {
  const { id, change, values, set, submit, field } = useNewAccountForm({
    name: "",
    // No default: the currency is fixed for the account's life, so it is always a choice.
    currency: "",
    creditLimit: "",
    accountcode: "",
    openingBalance: "",
  });
  return (
    <Card aria-labelledby={`${id}-title`} className="max-w-xl">
      <CardTitle id={`${id}-title`}>New account</CardTitle>
      <form onSubmit={submit} className="mt-3 flex flex-col gap-3" data-testid="new-account-form">
        {field("name", "Name", { required: true })}
        <CurrencySelect
          id={`${id}-currency`}
          value={values.currency}
          onChange={set("currency")}
          currencies={currencies}
          error={change.problem?.fields.currency}
        />
        {field("creditLimit", "Credit limit (optional)", { decimal: true })}
        {field("accountcode", "Switch accountcode (optional)")}
        {field("openingBalance", "Opening balance (optional)", { decimal: true })}
        <p className="text-xs text-slate-600">
          An account takes calls while its balance is above its credit limit: with no opening balance and no credit
          limit it starts disabled, and is enabled by its first top-up.
        </p>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={change.pending}>
            {change.pending ? "Creating…" : "Create account"}
          </Button>
          <Feedback problem={change.problem} done={change.done} id={`${id}-feedback`} />
        </div>
      </form>
    </Card>
  );
}

/**
 * A reseller's new customer: a name, where it goes (its own account or a sub-reseller's), an optional credit limit.
 * The currency is the reseller's (a child is in its parent's); no accountcode (the operator's switch routes by it) nor
 * opening balance (money from nowhere): the API refuses both for a reseller, so the form does not offer them.
 */
export function NewCustomerForm({
  currency,
  parents,
}: {
  currency: string;
  parents: readonly { id: string; name: string }[];
}) {
  const { id, change, values, set, submit, field } = useNewAccountForm({
    name: "",
    parentId: parents[0]?.id ?? "",
    creditLimit: "",
  });
  const parentError = change.problem?.fields.parentId;
  return (
    <Card aria-labelledby={`${id}-title`} className="max-w-xl">
      <CardTitle id={`${id}-title`}>New customer</CardTitle>
      <form onSubmit={submit} className="mt-3 flex flex-col gap-3" data-testid="new-account-form">
        {field("name", "Name", { required: true })}
        {parents.length > 1 ? (
          <Field id={`${id}-parentId`} label="Customer of">
            <select
              id={`${id}-parentId`}
              name="parentId"
              value={values.parentId}
              onChange={set("parentId")}
              aria-invalid={parentError ? true : undefined}
              aria-describedby={parentError ? fieldErrorId(`${id}-parentId`) : undefined}
              className={inputClass({ invalid: Boolean(parentError) })}
            >
              {parents.map((p, i) => (
                <option key={p.id} value={p.id}>
                  {i === 0 ? `${p.name} (you)` : p.name}
                </option>
              ))}
            </select>
            {parentError ? <FieldError id={fieldErrorId(`${id}-parentId`)}>{parentError}</FieldError> : null}
          </Field>
        ) : null}
        <p className="text-sm text-slate-700" data-testid="new-customer-currency">
          Currency: {currency} (your own: a customer is billed in its provider&apos;s currency).
        </p>
        {field("creditLimit", `Credit limit in ${currency} (optional)`, { decimal: true })}
        <p className="text-xs text-slate-600">
          A customer takes calls while its balance is above its credit limit: it starts at zero, so with no credit limit
          it starts disabled until you top it up from your own balance.
        </p>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={change.pending}>
            {change.pending ? "Creating…" : "Create customer"}
          </Button>
          <Feedback problem={change.problem} done={change.done} id={`${id}-feedback`} />
        </div>
      </form>
    </Card>
  );
}

/**
 * The state of a form that creates an account (the operator's new account, a reseller's new customer): its values,
 * POST /v1/accounts with the non-empty ones (idempotent), then the new account's page; `field` renders a text input
 * with its error from the answer.
 */
function useNewAccountForm<T extends Record<string, string>>(initial: T) {
  const id = useId();
  const router = useRouter();
  const change = useChange();
  const [values, setValues] = useState(initial);
  const set = (name: keyof T) => (e: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [name]: e.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void change.run(async (idempotencyKey) => {
      const body = Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== ""));
      const created = await sendProvisioning<AccountDetail>("POST", "/v1/accounts", body, idempotencyKey);
      router.push(`/console/accounts/${encodeURIComponent(created.id)}`);
      return `Created ${created.name}.`;
    });
  };
  const field = (name: keyof T & string, label: string, extra: { required?: boolean; decimal?: boolean } = {}) => (
    <TextField
      id={`${id}-${name}`}
      name={name}
      label={label}
      value={values[name]}
      onChange={(value) => setValues((v) => ({ ...v, [name]: value }))}
      error={change.problem?.fields[name]}
      {...extra}
    />
  );
  return { id, change, values, set, submit, field };
}
