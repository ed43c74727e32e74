import type { Principal } from "@/lib/auth/principal";
import { reachOf, requirePlatform } from "@/lib/auth/reach";
import type { Scope } from "@/lib/auth/scopes";
import { ApiError } from "@/lib/errors/api-error";
import type { Operation } from "./operation";

/**
 * An operation's own refusals of a principal: its scope, and a platform-only operation's group-bound callers.
 * apiRoute's, and a portal page's that renders the same answer on the server (lib/portal/first-screen.ts).
 */
export function assertOperationAllowed(
  operation: Pick<Operation<undefined, undefined, Scope>, "scope" | "platformOnly">,
  principal: Principal,
): void {
  if (!principal.scopes.has(operation.scope)) {
    throw new ApiError("insufficient_scope", `This endpoint needs the scope \`${operation.scope}\`.`);
  }
  if (operation.platformOnly) requirePlatform(reachOf(principal), operation.platformOnly);
}
