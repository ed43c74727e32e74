import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { PortalHeader } from "@/components/portal/portal-header";
import { getPortalPrincipal, toPortalSession } from "@/lib/portal/session";

// Pages check the session themselves too (layouts are skipped on client navigation); this one
// needs it for the header and keeps signed-out visitors away from the chrome.
export default async function PortalLayout({ children }: { children: ReactNode }) {
  const principal = await getPortalPrincipal();
  if (!principal) redirect("/sign-in");
  return (
    <div className="flex min-h-screen flex-col">
      <PortalHeader session={toPortalSession(principal)} />
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 lg:px-8">
        {children}
      </main>
    </div>
  );
}
