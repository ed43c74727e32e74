import type { Principal } from "@/lib/auth/principal";
import { effectiveScopes, type Scope } from "@/lib/auth/scopes";

/** A principal for domain tests, as authentication would build it for an API key (or a session). */
export function testPrincipal(
  billingGroupId: string | null,
  scopes: readonly Scope[] = ["calls:read"],
  via: Principal["via"] = "api_key",
): Principal {
  return { keyId: "key_test", scopes: effectiveScopes(scopes), billingGroupId, rateCardVersion: null, via };
}
