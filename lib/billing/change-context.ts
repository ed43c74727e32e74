import { auditActorOf } from "@/lib/audit/actor";
import type { AuditActor } from "@/lib/audit/record-audit-event";
import type { Principal } from "@/lib/auth/principal";
import { reachOf, requirePlatform } from "@/lib/auth/reach";
import { clientAddress } from "@/lib/auth/request-origin";

/** Who makes a provisioning change, and from where: what its audit event records (docs/contract.md §9). */
export interface ChangeContext {
  actor: AuditActor;
  /** The client's address over HTTP; null from the CLI. */
  address: string | null;
}

/**
 * The change context of a platform-only request (auto-recharge, erasing calls): those operations are declared
 * `platformOnly` (apiRoute refuses a key bound to a group before the handler runs); checked again here, as the
 * handler's own guard. Provisioning an account (a reseller's too) decides with requireProvisioningOf instead.
 */
export function platformChangeContext(principal: Principal, request: Request): ChangeContext {
  requirePlatform(reachOf(principal), "provisioning");
  return changeContextOf(principal, request);
}

/** The change context of any caller's request (a platform's or a group's): who, and from where. */
export function changeContextOf(principal: Principal, request: Request): ChangeContext {
  return { actor: auditActorOf(principal), address: clientAddress(request.headers) };
}
