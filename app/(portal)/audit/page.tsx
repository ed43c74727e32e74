import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AuditLog } from "@/components/audit/audit-log";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { requirePortalSession } from "@/lib/portal/session";
import { returnPathOf } from "@/lib/portal/sign-in";

export const metadata: Metadata = { title: "Audit log" };

/** The append-only log of changes (GET /v1/audit-events from the browser): sessions with `audit:read` only. */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { session } = await requirePortalSession(returnPathOf("/audit", await searchParams));
  if (!session.scopes.includes("audit:read")) notFound();
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="text-sm text-slate-600">
          Every change to {isPlatform(reachOf(session)) ? "every account" : "your account"}: who made it, when, from
          which address, and what it changed. Nothing in it can be edited or deleted.
        </p>
      </div>
      <AuditLog platform={isPlatform(reachOf(session))} />
    </div>
  );
}
