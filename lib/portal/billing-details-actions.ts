"use server";

import { headers } from "next/headers";
import { auditActorOf } from "@/lib/audit/actor";
import { clientAddress } from "@/lib/auth/request-origin";
import { billingDetailsSchema, setBillingDetails } from "@/lib/billing/billing-details";
import { getDb } from "@/lib/db/client";
import { getPortalPrincipal } from "./session";

// A reseller's billing details from its console (a server action: Next checks the post comes from this site's page).
// Its own account only, by its owners and admins (accounts:write in a bound session); the platform's are
// OPERATOR_NAME / OPERATOR_ADDRESS, not set here.

export interface BillingDetailsState {
  saved: boolean;
  message: string | null;
  errors: Partial<Record<"name" | "address" | "taxId", string>>;
}

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};

export async function saveBillingDetailsAction(
  _previous: BillingDetailsState,
  form: FormData,
): Promise<BillingDetailsState> {
  const principal = await getPortalPrincipal();
  if (!principal || principal.billingGroupId === null || !principal.scopes.has("accounts:write")) {
    return { saved: false, message: "Only a reseller's owners and admins set its billing details.", errors: {} };
  }
  const parsed = billingDetailsSchema.safeParse({
    name: text(form, "name"),
    address: text(form, "address"),
    taxId: text(form, "taxId"),
  });
  if (!parsed.success) {
    const errors: BillingDetailsState["errors"] = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as keyof BillingDetailsState["errors"];
      errors[field] ??= issue.message;
    }
    return { saved: false, message: "Nothing saved: see the fields.", errors };
  }
  await setBillingDetails(await getDb(), principal.billingGroupId, parsed.data, {
    actor: auditActorOf(principal),
    address: clientAddress(await headers()),
  });
  return { saved: true, message: "Saved: your customers' next invoices carry these details.", errors: {} };
}
