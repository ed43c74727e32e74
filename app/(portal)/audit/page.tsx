import type { Metadata } from "next";
import { AuditLog } from "@/components/audit/audit-log";
import { isPlatform, reachOf } from "@/lib/auth/reach";
import { getDb } from "@/lib/db/client";
import { accountNames, supplierNames } from "@/lib/portal/account-names";
import { requirePortalPage, type PageSearchParams } from "@/lib/portal/page-guard";
import { PORTAL_PAGES } from "@/lib/portal/pages";

export const metadata: Metadata = { title: "Audit log" };

/**
 * The append-only log of changes (GET /v1/audit-events from the browser): sessions with `audit:read` only. Accounts
 * and suppliers are shown by name: those in the session's reach (a customer: its own account), suppliers to cost
 * sessions only.
 */
export default async function AuditPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const { session, principal } = await requirePortalPage(PORTAL_PAGES.audit, searchParams);
  const db = await getDb();
  const [accounts, suppliers] = await Promise.all([accountNames(db, principal), supplierNames(db, principal)]);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="text-sm text-slate-600">
          Every change to {isPlatform(reachOf(session)) ? "every account" : "your account"}: who made it, when, from
          which address, and what it changed. Nothing in it can be edited or deleted.
        </p>
      </div>
      <AuditLog platform={isPlatform(reachOf(session))} names={{ ...accounts, ...suppliers }} />
    </div>
  );
}
