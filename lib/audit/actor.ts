import type { Principal } from "@/lib/auth/principal";
import type { AuditActor } from "./record-audit-event";

/**
 * The actor of a change made through /v1 or the portal: the person signed in (their user id and email), or the API
 * key behind the request (or behind its key session).
 */
export function auditActorOf(principal: Principal): AuditActor {
  if (principal.via === "user_session" && principal.userId) {
    return { type: "user", id: principal.userId, label: principal.keyLabel ?? null };
  }
  return { type: "api_key", id: principal.keyId, label: principal.keyLabel ?? null };
}

/** The actor of a change made by the operator's CLI (`npm run admin`). */
export const CLI_ACTOR: AuditActor = { type: "cli", id: null, label: "admin CLI" };
