import type { Metadata } from "next";
import { RateCalculator } from "@/components/rates/rate-calculator";
import { requirePortalSession } from "@/lib/portal/session";

export const metadata: Metadata = { title: "Rates" };

export default async function RatesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const destination = typeof params.destination === "string" && /^\+?\d{1,32}$/.test(params.destination) ? params.destination : "";
  const seconds = typeof params.seconds === "string" && /^\d{1,6}$/.test(params.seconds) ? Number(params.seconds) : 60;
  const { session } = await requirePortalSession("/rates");
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Rate calculator</h1>
        <p className="text-sm text-slate-600">The rate your account pays for a destination, and what a call of a given length costs.</p>
      </div>
      {session.billingGroupId === null ? (
        <p role="note" className="rounded-xl border border-slate-200 bg-white p-5 text-sm text-slate-600 shadow-sm">
          Rate cards belong to billing groups. This is a platform key, which sees every group but has no rate card of its own: sign in
          with a key bound to a billing group to look up its rates.
        </p>
      ) : (
        <RateCalculator initialDestination={destination} initialSeconds={seconds} />
      )}
    </div>
  );
}
