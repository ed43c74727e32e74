"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { apiGet, ApiProblem } from "@/components/api/api-client";
import { NamedId } from "@/components/portal/named-id";
import { Time } from "@/components/portal/time-zone";
import { Button, secondaryButtonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { LoadMore } from "@/components/ui/load-more";
import type { AuditEvent, AuditEventPage } from "@/lib/audit/schemas";

interface Filters {
  action: string;
  actorId: string;
  from: string;
  until: string;
}

const EMPTY: Filters = { action: "", actorId: "", from: "", until: "" };

/** The query of GET /v1/audit-events (and its export) for the filters; dates are whole days in the viewer's zone. */
function queryOf(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.action) query.set("action", filters.action);
  if (filters.actorId) query.set("actorId", filters.actorId);
  if (filters.from) query.set("occurredAt[gte]", new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.until) query.set("occurredAt[lte]", new Date(`${filters.until}T23:59:59.999`).toISOString());
  return query;
}

function actorText(event: AuditEvent): string {
  const kind = { api_key: "API key", user: "Person", cli: "Operator CLI", system: "System" }[event.actor.type];
  // The CLI and the system are one actor each: their kind says it all.
  if (event.actor.type === "cli" || event.actor.type === "system" || !event.actor.label) return kind;
  return `${event.actor.label} (${kind})`;
}

function Snapshot({ event }: { event: AuditEvent }) {
  if (event.before === null && event.after === null) return <span className="text-slate-400">—</span>;
  return (
    <details>
      <summary className="cursor-pointer text-xs text-brand-700">Before / after</summary>
      <div className="mt-1 grid gap-2 text-xs sm:grid-cols-2">
        <pre className="overflow-x-auto rounded bg-slate-50 p-2" aria-label="Before">
          {JSON.stringify(event.before, null, 2)}
        </pre>
        <pre className="overflow-x-auto rounded bg-slate-50 p-2" aria-label="After">
          {JSON.stringify(event.after, null, 2)}
        </pre>
      </div>
    </details>
  );
}

/**
 * The audit log of the session's account (platform: every account's), newest first, with filters, more pages on
 * demand and the CSV of the same filters (GET /v1/audit-events and /export, with the session cookie). Accounts and
 * suppliers (the Account column, a target) by name from `names`, the id on hover.
 */
export function AuditLog({ platform, names }: { platform: boolean; names?: Record<string, string> }) {
  const id = useId();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const query = queryOf(filters);
  const pages = useInfiniteQuery({
    queryKey: ["audit-events", query.toString()],
    initialPageParam: `/v1/audit-events?${new URLSearchParams([...query, ["pageSize", "50"]])}`,
    queryFn: ({ pageParam, signal }) => apiGet<AuditEventPage>(pageParam, signal),
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
  });
  const events = pages.data?.pages.flatMap((p) => p.events) ?? [];
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  const badRange = draft.from !== "" && draft.until !== "" && draft.from > draft.until;
  const exportHref = `/v1/audit-events/export${query.size ? `?${query}` : ""}`;

  return (
    <div className="flex flex-col gap-4">
      <Card
        as="form"
        padding="sm"
        onSubmit={apply}
        aria-label="Audit log filters"
        className="flex flex-wrap items-end gap-3"
      >
        <Field id={`${id}-action`} label="Action" className="w-48">
          <input
            id={`${id}-action`}
            className={inputClass()}
            placeholder="api_key.* or api_key.revoked"
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.target.value.trim() })}
          />
        </Field>
        <Field id={`${id}-actor`} label="Actor id" className="w-48">
          <input
            id={`${id}-actor`}
            className={inputClass()}
            placeholder="key_…"
            value={draft.actorId}
            onChange={(e) => setDraft({ ...draft, actorId: e.target.value.trim() })}
          />
        </Field>
        <Field id={`${id}-from`} label="From" className="w-40">
          <input
            id={`${id}-from`}
            type="date"
            className={inputClass({ invalid: badRange })}
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </Field>
        <Field id={`${id}-until`} label="Until" className="w-40">
          <input
            id={`${id}-until`}
            type="date"
            className={inputClass({ invalid: badRange })}
            value={draft.until}
            onChange={(e) => setDraft({ ...draft, until: e.target.value })}
          />
        </Field>
        <Button type="submit" variant="primary" disabled={badRange}>
          Apply
        </Button>
        <a href={exportHref} download className={secondaryButtonClass} data-testid="audit-csv">
          Download CSV
        </a>
        {badRange ? (
          <p role="alert" className="w-full text-xs text-red-700">
            From is after Until.
          </p>
        ) : null}
      </Card>
      <Card padding="none">
        {pages.isError ? (
          <LoadError
            title="The audit log could not be loaded."
            detail={pages.error instanceof ApiProblem ? pages.error.detail : undefined}
            onRetry={() => pages.refetch()}
          />
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm" data-testid="audit-events">
              <caption className="sr-only">Audit events, newest first</caption>
              <thead className="border-b border-slate-200 bg-slate-50 text-xs text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">When</th>
                  <th className="px-4 py-2 font-medium">Action</th>
                  <th className="px-4 py-2 font-medium">Actor</th>
                  <th className="px-4 py-2 font-medium">Target</th>
                  {platform ? <th className="px-4 py-2 font-medium">Account</th> : null}
                  <th className="px-4 py-2 font-medium">Address</th>
                  <th className="px-4 py-2 font-medium">Change</th>
                </tr>
              </thead>
              <tbody>
                {pages.isPending ? (
                  <tr>
                    <td colSpan={7} className="px-4 py-6 text-center text-slate-500">
                      Loading events…
                    </td>
                  </tr>
                ) : events.length === 0 ? (
                  <tr>
                    <td colSpan={7} className="px-4 py-6 text-center text-slate-500">
                      No events match.
                    </td>
                  </tr>
                ) : (
                  events.map((event) => (
                    <tr key={event.id} data-event-action={event.action} className="border-b border-slate-100 align-top">
                      <td className="px-4 py-2 whitespace-nowrap">
                        <Time iso={event.occurredAt} />
                      </td>
                      <td className="px-4 py-2 font-mono text-xs">{event.action}</td>
                      <td className="px-4 py-2">{actorText(event)}</td>
                      <td className="px-4 py-2 text-xs">
                        {event.target.type}
                        {event.target.id ? <NamedId id={event.target.id} names={names} className="block" /> : null}
                      </td>
                      {platform ? (
                        <td className="px-4 py-2 text-xs">
                          {event.billingGroupId ? <NamedId id={event.billingGroupId} names={names} /> : "Platform"}
                        </td>
                      ) : null}
                      <td className="px-4 py-2 font-mono text-xs">{event.address ?? "—"}</td>
                      <td className="px-4 py-2">
                        <Snapshot event={event} />
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        )}
        <LoadMore pages={pages} />
      </Card>
    </div>
  );
}
