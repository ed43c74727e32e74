import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CallDetailBody } from "@/components/calls/call-detail-dialog";
import { ApiError } from "@/lib/errors/api-error";
import { getDb } from "@/lib/db/client";
import { nameDestinations } from "@/lib/portal/destination-names";
import { callNames } from "@/lib/portal/names";
import { portalCall } from "@/lib/portal/portal-call-reads";
import { Card } from "@/components/ui/card";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Call" };

/** A call's own page: the linkable form of the call log's detail dialog. */
export default async function CallPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { principal } = await requirePortalSession(`/calls/${encodeURIComponent(id)}`);
  const db = await getDb();
  // The one serialiser decides the fields: no cost fields for a session without calls:read_cost. A moved month's
  // call is read from the history tier, as GET /v1/calls/{id} reads it.
  const call = await portalCall(db, principal, id).catch((e: unknown) => {
    if (e instanceof ApiError && e.code === "not_found") notFound();
    throw e;
  });
  const [names, destinations] = await Promise.all([
    callNames(db, principal, {
      billingGroupId: call.billingGroupId,
      supplierId: "supplierId" in call ? call.supplierId : null,
    }),
    nameDestinations(db, principal, [{ billingGroupId: call.billingGroupId, numbers: [call.to] }]),
  ]);
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-4">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href="/calls" className="font-medium text-brand-700 hover:text-brand-600">
          ← Calls
        </Link>
      </nav>
      <h1 className="text-2xl font-semibold tracking-tight">Call {call.id}</h1>
      <Card as="div" padding="none" className="px-5 py-3" data-testid="call-detail">
        <CallDetailBody
          call={call}
          accounts={names.accounts}
          suppliers={names.suppliers}
          destinationName={destinations[call.billingGroupId]?.[call.to]}
        />
      </Card>
    </div>
  );
}
