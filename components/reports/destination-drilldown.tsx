"use client";

import { useQueries } from "@tanstack/react-query";
import { useId } from "react";
import { parseMicros } from "@/lib/money/micros";
import { formatAmount, formatCount, formatMinutes, formatPercent } from "@/lib/portal/format";
import { destinationName, type ReportRow } from "@/lib/portal/report";
import type { UsageReport } from "@/lib/usage/schemas";
import { apiGet } from "../api/api-client";
import { Amount } from "../calls/call-columns";
import { Card } from "../ui/card";
import type { ReportItem } from "./report-items";

interface Line {
  id: string;
  text: string;
  calls: number;
  billedSeconds: number;
  price: bigint;
  buyCost?: bigint;
  margin?: bigint;
}

const lineOf = (id: string, text: string, rows: ReportRow[]): Line => ({
  id,
  text,
  calls: rows.reduce((n, r) => n + r.calls, 0),
  billedSeconds: rows.reduce((n, r) => n + r.billedSeconds, 0),
  price: rows.reduce((n, r) => n + parseMicros(r.price), 0n),
  buyCost: rows.some((r) => r.buyCost !== undefined)
    ? rows.reduce((n, r) => n + parseMicros(r.buyCost ?? 0), 0n)
    : undefined,
  margin: rows.some((r) => r.margin !== undefined)
    ? rows.reduce((n, r) => n + parseMicros(r.margin ?? 0), 0n)
    : undefined,
});

// Module-level, so useQueries keeps its result while no answer changes.
const pick = (results: { data?: UsageReport; isPending: boolean; isError: boolean }[]) => results;

/**
 * One destination name opened: its prefixes (the rate card's rows under the name), and for cost sessions which
 * suppliers carried its calls (GET /v1/usage by destination, once per supplier, with the report's filters).
 */
export function DestinationDrilldown({
  item,
  usageQuery,
  suppliers,
  canReadCost,
  revenueLabel,
  onClose,
}: {
  item: ReportItem;
  /** The report's GET /v1/usage query (groupBy=destination). */
  usageQuery: URLSearchParams;
  /** Supplier names by id: cost sessions only. */
  suppliers: Record<string, string>;
  canReadCost: boolean;
  revenueLabel: string;
  onClose: () => void;
}) {
  const titleId = useId();
  const prefixes = (item.prefixes ?? []).map((p) => lineOf(p.key ?? "none", p.key ?? "No prefix matched", [p]));
  const supplierIds = canReadCost ? Object.keys(suppliers) : [];
  const answers = useQueries({
    queries: supplierIds.map((supplierId) => {
      const q = new URLSearchParams(usageQuery);
      q.set("supplierId", supplierId);
      const text = q.toString();
      return {
        queryKey: ["usage", text],
        queryFn: ({ signal }: { signal: AbortSignal }) => apiGet<UsageReport>(`/v1/usage?${text}`, signal),
      };
    }),
    combine: pick,
  });
  const pending = answers.some((a) => a.isPending);
  const failed = answers.some((a) => a.isError);
  let bySupplier: Line[] = [];
  if (!pending && !failed) {
    bySupplier = supplierIds
      .map((id, i) => {
        const rows = (answers[i].data?.rows ?? []).filter(
          (r) => r.currency === item.currency && destinationName(r) === item.text,
        ) as ReportRow[];
        return lineOf(id, suppliers[id] ?? id, rows);
      })
      .filter((l) => l.calls > 0);
    const total = lineOf("total", "", item.prefixes ?? []);
    const carried = bySupplier.reduce((n, l) => n + l.calls, 0);
    if (total.calls > carried) {
      // Calls no supplier carried (unanswered, or routed without one): the rest of the destination.
      bySupplier.push({
        id: "none",
        text: "No supplier",
        calls: total.calls - carried,
        billedSeconds: total.billedSeconds - bySupplier.reduce((n, l) => n + l.billedSeconds, 0),
        price: total.price - bySupplier.reduce((n, l) => n + l.price, 0n),
        buyCost: 0n,
        margin:
          total.margin === undefined ? undefined : total.margin - bySupplier.reduce((n, l) => n + (l.margin ?? 0n), 0n),
      });
    }
  }
  return (
    <Card aria-labelledby={titleId} data-testid="destination-drilldown">
      <div className="flex items-start justify-between gap-3">
        <h3 id={titleId} className="text-base font-semibold">
          {item.text} <span className="text-sm font-normal text-slate-600">({item.currency})</span>
        </h3>
        <button
          type="button"
          onClick={onClose}
          className="rounded-md px-2 py-1 text-sm text-slate-600 hover:bg-slate-100"
        >
          Close
        </button>
      </div>
      <Lines
        title="Prefixes"
        lines={prefixes}
        currency={item.currency}
        revenueLabel={revenueLabel}
        mono
        testId="drilldown-prefixes"
      />
      {canReadCost ? (
        pending ? (
          <p className="mt-4 text-sm text-slate-600">Adding up the suppliers of this destination…</p>
        ) : failed ? (
          <p className="mt-4 text-sm text-red-800" role="alert">
            The supplier breakdown could not be loaded.
          </p>
        ) : (
          <Lines
            title="By supplier"
            lines={bySupplier}
            currency={item.currency}
            revenueLabel={revenueLabel}
            testId="drilldown-suppliers"
          />
        )
      ) : null}
    </Card>
  );
}

function Lines({
  title,
  lines,
  currency,
  revenueLabel,
  mono = false,
  testId,
}: {
  title: string;
  lines: Line[];
  currency: string;
  revenueLabel: string;
  mono?: boolean;
  testId: string;
}) {
  const cost = lines.some((l) => l.margin !== undefined);
  return (
    <div className="mt-4 overflow-x-auto" role="region" aria-label={title} tabIndex={0}>
      <table className="w-full min-w-[32rem] text-sm" data-testid={testId}>
        <caption className="mb-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
          {title}
        </caption>
        <thead>
          <tr className="border-b border-slate-200 text-left text-xs text-slate-600">
            <th scope="col" className="py-1.5 pr-3 font-medium">
              {mono ? "Prefix" : "Supplier"}
            </th>
            <th scope="col" className="px-3 py-1.5 text-right font-medium">
              Calls
            </th>
            <th scope="col" className="px-3 py-1.5 text-right font-medium">
              Billed minutes
            </th>
            <th scope="col" className="px-3 py-1.5 text-right font-medium">
              {revenueLabel} ({currency})
            </th>
            {cost ? (
              <>
                <th scope="col" className="px-3 py-1.5 text-right font-medium">
                  Margin
                </th>
                <th scope="col" className="py-1.5 pl-3 text-right font-medium">
                  Margin %
                </th>
              </>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.id} className="border-b border-slate-100 last:border-0">
              <td className={`py-1.5 pr-3 ${mono ? "font-mono" : ""}`}>{l.text}</td>
              <td className="num px-3 py-1.5">{formatCount(l.calls)}</td>
              <td className="num px-3 py-1.5">{formatMinutes(l.billedSeconds)}</td>
              <td className="num px-3 py-1.5">{formatAmount(l.price, currency)}</td>
              {cost ? (
                <>
                  <td className="num px-3 py-1.5">
                    {l.margin === undefined ? "—" : <Amount micros={l.margin} currency={currency} signed />}
                  </td>
                  <td className="num py-1.5 pl-3">
                    {l.margin === undefined ? "—" : (formatPercent(l.margin, l.price) ?? "—")}
                  </td>
                </>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
