import type { Metadata } from "next";
import { Suspense } from "react";
import { CallLog } from "@/components/calls/call-log";
import { callColumnsFor } from "@/lib/portal/call-columns";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Calls" };

export default async function CallsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) if (typeof v === "string") params.set(k, v);
  const { session } = await requirePortalSession(`/calls${params.size ? `?${params}` : ""}`);
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
        <p className="text-sm text-slate-600">
          Every completed call, newest first. Times are shown in your time zone. Select a call for its full detail.
        </p>
      </div>
      <Suspense>
        {/* The server decides which columns exist: cost columns only for cost-scoped sessions. */}
        <CallLog columns={callColumnsFor(session)} />
      </Suspense>
    </div>
  );
}
