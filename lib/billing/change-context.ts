import { auditActorOf } from "@/lib/audit/actor";
import type { AuditActor } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { clientAddress } from "@/lib/auth/request-origin";
import { ApiError } from "@/lib/errors/api-error";

/** Who makes a provisioning change, and from where: what its audit event records (docs/contract.md §9). */
export interface ChangeContext {
  actor: AuditActor;
  /** The client's address over HTTP; null from the CLI. */
  address: string | null;
}

/**
 * The change context of a provisioning request. Billing groups and their money are the platform's to manage: a key
 * bound to a group answers 403 even when it holds the scope (a customer must not raise its own credit limit).
 */
export function platformChangeContext(principal: Principal, request: Request): ChangeContext {
  if (principal.billingGroupId !== null) {
    throw new ApiError(
      "insufficient_scope",
      "Provisioning accounts needs a platform key (one not bound to a billing group).",
    );
  }
  return { actor: auditActorOf(principal), address: clientAddress(request.headers) };
}
