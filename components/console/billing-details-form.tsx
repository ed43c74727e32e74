"use client";

import { useActionState, useId } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";
import type { BillingDetails } from "@/lib/billing/billing-details";
import { saveBillingDetailsAction, type BillingDetailsState } from "@/lib/portal/billing-details-actions";

const START: BillingDetailsState = { saved: false, message: null, errors: {} };

/** A reseller's own billing details: what the invoices it issues to its customers say of it, and its mail's name. */
export function BillingDetailsForm({ details, accountName }: { details: BillingDetails; accountName: string }) {
  const id = useId();
  const [state, action, pending] = useActionState(saveBillingDetailsAction, START);
  const described = (field: keyof BillingDetailsState["errors"]) =>
    state.errors[field] ? { "aria-invalid": true, "aria-describedby": fieldErrorId(`${id}-${field}`) } : {};
  return (
    <Card as="section" aria-labelledby={`${id}-title`} className="max-w-xl">
      <CardTitle id={`${id}-title`}>Billing details on your invoices</CardTitle>
      <p className="mt-1 text-sm text-slate-600">
        Your customers&apos; invoices are issued by you: this name, address and tax ID are on each one, and their
        invoice mail comes in this name.
      </p>
      <form action={action} className="mt-3 flex flex-col gap-3" data-testid="billing-details-form">
        <Field id={`${id}-name`} label="Name on invoices (empty: the account's name)">
          <input
            id={`${id}-name`}
            name="name"
            defaultValue={details.name}
            placeholder={accountName}
            className={inputClass({ invalid: Boolean(state.errors.name) })}
            {...described("name")}
          />
          {state.errors.name ? <FieldError id={fieldErrorId(`${id}-name`)}>{state.errors.name}</FieldError> : null}
        </Field>
        <Field id={`${id}-address`} label="Address (up to 6 lines)">
          <textarea
            id={`${id}-address`}
            name="address"
            rows={4}
            defaultValue={details.address}
            className={inputClass({ invalid: Boolean(state.errors.address) })}
            {...described("address")}
          />
          {state.errors.address ? (
            <FieldError id={fieldErrorId(`${id}-address`)}>{state.errors.address}</FieldError>
          ) : null}
        </Field>
        <Field id={`${id}-taxId`} label="Tax ID (optional)">
          <input
            id={`${id}-taxId`}
            name="taxId"
            defaultValue={details.taxId}
            className={inputClass({ invalid: Boolean(state.errors.taxId) })}
            {...described("taxId")}
          />
          {state.errors.taxId ? <FieldError id={fieldErrorId(`${id}-taxId`)}>{state.errors.taxId}</FieldError> : null}
        </Field>
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={pending}>
            {pending ? "Saving…" : "Save billing details"}
          </Button>
          <p
            aria-live="polite"
            className={`text-sm ${state.saved ? "text-emerald-700" : "text-red-700"}`}
            data-testid="billing-details-status"
          >
            {state.message}
          </p>
        </div>
      </form>
    </Card>
  );
}
