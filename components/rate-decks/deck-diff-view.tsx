"use client";

import { useState, type ReactNode } from "react";
import { NamedId } from "@/components/portal/named-id";
import { Button } from "@/components/ui/button";
import { splitWarnings } from "@/lib/rating/deck-review";
import type { DeckDiffJson, RateTermsJson } from "@/lib/rating/schemas";
import { DeckEffective } from "./deck-effective";

const PAGE = 50;

type Tab = "changed" | "added" | "removed" | "warnings";

const terms = (t: RateTermsJson) =>
  `${t.rate} / ${t.increment}${t.connectFee !== null ? `, connect ${t.connectFee}` : ""}${t.minCharge !== null ? `, min ${t.minCharge}` : ""}`;

/** A long list shown a page at a time (a deck's diff may hold tens of thousands of prefixes). */
function Paged<T>({
  items,
  label,
  head,
  row,
}: {
  items: T[];
  label: string;
  head: ReactNode;
  row: (item: T) => ReactNode;
}) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / PAGE));
  const at = Math.min(page, pages - 1);
  const shown = items.slice(at * PAGE, at * PAGE + PAGE);
  return (
    <div>
      <div className="overflow-x-auto" role="region" aria-label={`${label} table`} tabIndex={0}>
        <table className="w-full text-left text-sm" aria-label={label} data-testid="deck-diff-table">
          <thead className="border-y border-slate-200 bg-slate-50 text-xs text-slate-600">{head}</thead>
          <tbody>
            {shown.length === 0 ? (
              <tr>
                <td colSpan={6} className="px-4 py-4 text-center text-slate-500">
                  None.
                </td>
              </tr>
            ) : (
              shown.map(row)
            )}
          </tbody>
        </table>
      </div>
      {pages > 1 ? (
        <div className="flex items-center gap-2 px-4 py-2 text-sm text-slate-600">
          <Button onClick={() => setPage(at - 1)} disabled={at === 0}>
            Previous
          </Button>
          <span>
            Page {at + 1} of {pages} ({items.length.toLocaleString("en")} rows)
          </span>
          <Button onClick={() => setPage(at + 1)} disabled={at >= pages - 1}>
            Next
          </Button>
        </div>
      ) : null}
    </div>
  );
}

const th = "px-4 py-2 font-medium";
const td = "px-4 py-1.5";

type Warning = DeckDiffJson["marginWarnings"][number];

/** Margin warnings: the account and the supplier by name (`names`), the id on hover. */
function WarningsTable({ items, label, names }: { items: Warning[]; label: string; names?: Record<string, string> }) {
  return (
    <Paged
      label={label}
      items={items}
      head={
        <tr>
          <th className={th}>Sell prefix</th>
          <th className={th}>Account</th>
          <th className={th}>Sell rate</th>
          <th className={th}>Supplier</th>
          <th className={th}>Buy prefix / rate</th>
          <th className={th}>Margin</th>
        </tr>
      }
      row={(w) => (
        <tr key={`${w.prefix}-${w.billingGroupId}-${w.supplierId}`} className="border-b border-slate-100">
          <td className={`${td} font-mono`}>{w.prefix}</td>
          <td className={td}>
            <NamedId id={w.billingGroupId} names={names} />
          </td>
          <td className={`${td} tabular-nums`}>{w.sellRate}</td>
          <td className={td}>
            <NamedId id={w.supplierId} names={names} />
          </td>
          <td className={`${td} tabular-nums`}>
            {w.buyPrefix} / {w.buyRate}
          </td>
          <td
            className={`${td} tabular-nums ${w.reason === "below_cost" ? "font-semibold text-red-700" : "text-amber-800"}`}
          >
            {w.marginPercent === null ? "—" : `${w.marginPercent} %`}
            {w.reason === "below_cost" ? " (below cost)" : " (low)"}
          </td>
        </tr>
      )}
    />
  );
}

type ParentCosts = NonNullable<DeckDiffJson["parentCosts"]>;

const PARENT_STATUS: Record<ParentCosts["rates"][number]["status"], string> = {
  below_cost: "Below cost",
  unpriced: "Not in the buy deck",
  low_margin: "Low margin",
  ok: "OK",
};

/**
 * The margin guard (a customer's deck against its parent's own deck in force then, docs/contract.md "Reseller
 * tiers"): counts, then each rate with the parent's buy prefix and rate, below cost first. Only the parent's own
 * deck: never a supplier's.
 */
function ParentCostsSection({ costs, names }: { costs: ParentCosts; names?: Record<string, string> }) {
  return (
    <section aria-labelledby="parent-costs-title" className="flex flex-col gap-2" data-testid="parent-costs">
      <div className="px-4">
        <h3 id="parent-costs-title" className="text-sm font-semibold text-slate-900">
          Against the buy rates of <NamedId id={costs.accountId} names={names} />
        </h3>
        <p className="text-sm text-slate-600" data-testid="parent-costs-counts">
          {costs.deckId === null ? "It has no deck in force then: every rate is unpriced. " : null}
          <span className={costs.belowCost > 0 ? "font-semibold text-red-700" : undefined}>
            {costs.belowCost.toLocaleString("en")} below cost
          </span>
          , {costs.lowMargin.toLocaleString("en")} under the margin asked, {costs.unpriced.toLocaleString("en")} not in
          the buy deck.
        </p>
      </div>
      <Paged
        label="Rates against the buy rates"
        items={costs.rates}
        head={
          <tr>
            <th className={th}>Prefix</th>
            <th className={th}>Sell rate</th>
            <th className={th}>Buy prefix / rate</th>
            <th className={th}>Margin</th>
            <th className={th}>Status</th>
          </tr>
        }
        row={(r) => (
          <tr key={r.prefix} className="border-b border-slate-100" data-status={r.status}>
            <td className={`${td} font-mono`}>{r.prefix}</td>
            <td className={`${td} tabular-nums`}>{r.sellRate}</td>
            <td className={`${td} tabular-nums`}>{r.buyPrefix === null ? "—" : `${r.buyPrefix} / ${r.buyRate}`}</td>
            <td className={`${td} tabular-nums`}>{r.marginPercent === null ? "—" : `${r.marginPercent} %`}</td>
            <td
              className={`${td} ${r.status === "below_cost" ? "font-semibold text-red-700" : r.status === "ok" ? "" : "text-amber-800"}`}
            >
              {PARENT_STATUS[r.status]}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

/**
 * The dry run's answer, what the upload changes first: counts, then the changed, added and removed prefixes and the
 * margin warnings on those rates, each paged; the warnings on rates the deck leaves as they were behind their count
 * (a whole deck may warn thousands of times while three rates change).
 */
export function DeckDiffView({ diff, names }: { diff: DeckDiffJson; names?: Record<string, string> }) {
  const warnings = splitWarnings(diff);
  const tabs: { id: Tab; label: string; count: number }[] = [
    { id: "changed", label: "Changed", count: diff.changed.length },
    { id: "added", label: "Added", count: diff.added.length },
    { id: "removed", label: "Removed", count: diff.removed.length },
    { id: "warnings", label: "Margin warnings on changes", count: warnings.onChanges.length },
  ];
  const [tab, setTab] = useState<Tab>(() => tabs.find((t) => t.count > 0)?.id ?? "changed");
  return (
    <div className="flex flex-col gap-3">
      <dl className="grid grid-cols-2 gap-3 px-4 text-sm sm:grid-cols-5" data-testid="deck-diff-summary">
        {[
          ["Rates in the file", diff.prefixes],
          ["Added", diff.added.length],
          ["Removed", diff.removed.length],
          ["Changed", diff.changed.length],
          ["Unchanged", diff.unchanged],
        ].map(([label, value]) => (
          <div key={label} className="rounded-lg border border-slate-200 px-3 py-2">
            <dt className="text-xs text-slate-600">{label}</dt>
            <dd className="text-lg font-semibold tabular-nums">{Number(value).toLocaleString("en")}</dd>
          </div>
        ))}
      </dl>
      <p className="px-4 text-sm text-slate-600">
        {diff.comparedWith ? (
          <>
            Compared with the deck in force then (effective{" "}
            <DeckEffective iso={diff.comparedWith.effectiveFrom} side={diff.side} />
            ).
          </>
        ) : (
          "There is no deck in force then: every prefix is new."
        )}
      </p>
      <div role="tablist" aria-label="Differences" className="flex flex-wrap gap-1 px-4">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`diff-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`diff-panel-${t.id}`}
            onClick={() => setTab(t.id)}
            className={`rounded-md px-3 py-1.5 text-sm font-medium ${tab === t.id ? "bg-brand-50 text-brand-700" : "text-slate-600 hover:bg-slate-100"} ${t.id === "warnings" && t.count > 0 ? "text-amber-800" : ""}`}
          >
            {t.label} ({t.count.toLocaleString("en")})
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`diff-panel-${tab}`} aria-labelledby={`diff-tab-${tab}`}>
        {tab === "changed" ? (
          <Paged
            key="changed"
            label="Changed prefixes"
            items={diff.changed}
            head={
              <tr>
                <th className={th}>Prefix</th>
                <th className={th}>Description</th>
                <th className={th}>Old rate / increment</th>
                <th className={th}>New rate / increment</th>
              </tr>
            }
            row={(c) => (
              <tr key={c.prefix} className="border-b border-slate-100">
                <td className={`${td} font-mono`}>{c.prefix}</td>
                <td className={td}>{c.new.description ?? c.old.description ?? ""}</td>
                <td className={`${td} tabular-nums`}>{terms(c.old)}</td>
                <td className={`${td} tabular-nums`}>{terms(c.new)}</td>
              </tr>
            )}
          />
        ) : tab === "warnings" ? (
          <WarningsTable key="warnings" label="Margin warnings on changes" items={warnings.onChanges} names={names} />
        ) : (
          <Paged
            key={tab}
            label={tab === "added" ? "Added prefixes" : "Removed prefixes"}
            items={tab === "added" ? diff.added : diff.removed}
            head={
              <tr>
                <th className={th}>Prefix</th>
                <th className={th}>Description</th>
                <th className={th}>Rate / increment</th>
              </tr>
            }
            row={(r) => (
              <tr key={r.prefix} className="border-b border-slate-100">
                <td className={`${td} font-mono`}>{r.prefix}</td>
                <td className={td}>{r.description ?? ""}</td>
                <td className={`${td} tabular-nums`}>{terms(r)}</td>
              </tr>
            )}
          />
        )}
      </div>
      {diff.parentCosts ? <ParentCostsSection costs={diff.parentCosts} names={names} /> : null}
      {warnings.othersCount > 0 ? (
        <details className="px-4" data-testid="deck-other-warnings">
          <summary className="cursor-pointer text-sm font-medium text-amber-800">
            {warnings.othersCount.toLocaleString("en")} more {warnings.othersCount === 1 ? "warning" : "warnings"} on
            unchanged rates
          </summary>
          <div className="-mx-4 mt-2">
            <WarningsTable label="Margin warnings on unchanged rates" items={warnings.others} names={names} />
            {warnings.othersCount > warnings.others.length ? (
              <p className="px-4 py-2 text-sm text-amber-800">
                Showing the first {warnings.others.length.toLocaleString("en")} of{" "}
                {warnings.othersCount.toLocaleString("en")}.
              </p>
            ) : null}
          </div>
        </details>
      ) : null}
    </div>
  );
}
