import type { ReactNode } from "react";
import { PortalHeader } from "@/components/portal/portal-header";
import { getSignedInPrincipal, toPortalSession } from "@/lib/portal/session";

// The session check that guards data is in each page (requirePortalSession: layouts are skipped on
// client navigation, and the page knows its own URL to come back to after sign-in). The layout
// only needs the session for the header, and renders no chrome without one.
export default async function PortalLayout({ children }: { children: ReactNode }) {
  // A member who must first set up a second factor gets the header too (sign-out, the Security page).
  const principal = await getSignedInPrincipal();
  if (!principal) return children;
  return (
    <div className="flex min-h-screen flex-col">
      <PortalHeader session={toPortalSession(principal)} />
      <main id="main" className="mx-auto w-full max-w-screen-2xl flex-1 px-4 py-6 sm:px-6">
        {children}
      </main>
    </div>
  );
}
