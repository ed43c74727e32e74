"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, type ReactNode } from "react";
import type { CallDetail, CallDetailWithCost } from "@/lib/calls/schemas";
import { callStatus } from "@/lib/portal/call-status";
import { formatDuration, formatPhoneNumber, formatPrice, formatRate, toMicros } from "@/lib/portal/format";
import { ApiProblem, apiGet } from "../api/api-client";
import { Time, useTimeZone } from "../portal/time-zone";
import { LoadError } from "../ui/load-error";
import { DirectionBadge, Money, PhoneNumber, Price, StatusBadge, type NameMap } from "./call-columns";
import { useDestinationNames } from "./use-destination-names";

export type Detail = CallDetail & Partial<Pick<CallDetailWithCost, "buyCost" | "margin" | "supplierId" | "buyRate">>;

/** The full record of one call (GET /v1/calls/{id}) in a modal dialog: focus trapped, Escape closes. */
export function CallDetailDialog({
  callId,
  onClose,
  accounts = {},
  suppliers = {},
}: {
  callId: string | null;
  onClose: () => void;
  accounts?: NameMap;
  suppliers?: NameMap;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (callId && !dialog.open) dialog.showModal();
    if (!callId && dialog.open) dialog.close();
  }, [callId]);

  const detail = useQuery({
    queryKey: ["call", callId],
    queryFn: ({ signal }) => apiGet<Detail>(`/v1/calls/${encodeURIComponent(callId!)}`, signal),
    enabled: callId !== null,
  });

  return (
    <dialog
      ref={ref}
      onClose={onClose}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose(); // backdrop click
      }}
      aria-labelledby="call-detail-title"
      className="m-auto w-[min(40rem,calc(100vw-2rem))] rounded-2xl border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="flex items-center justify-between border-b border-slate-200 px-5 py-3">
        <h2 id="call-detail-title" className="text-base font-semibold">
          Call {callId}
        </h2>
        <div className="flex items-center gap-1">
          {callId ? (
            <Link
              href={`/calls/${encodeURIComponent(callId)}`}
              className="rounded-md px-2 py-1 text-sm font-medium text-brand-700 hover:bg-slate-100"
              data-testid="call-permalink"
            >
              Open page
            </Link>
          ) : null}
          <button
            type="button"
            onClick={onClose}
            className="rounded-md px-2 py-1 text-sm text-slate-600 hover:bg-slate-100"
            aria-label="Close call detail"
          >
            Close
          </button>
        </div>
      </div>
      {/* Scrolls when the record is taller than the screen: focusable, so the keyboard can scroll it. */}
      <div
        className="max-h-[70dvh] overflow-y-auto px-5 py-4"
        data-testid="call-detail"
        role="region"
        aria-label="Call record"
        tabIndex={0}
      >
        {detail.isPending ? (
          <p className="py-8 text-center text-sm text-slate-500">Loading call…</p>
        ) : detail.isError ? (
          <LoadError
            title="The call could not be loaded"
            detail={detail.error instanceof ApiProblem ? detail.error.detail : undefined}
            onRetry={() => void detail.refetch()}
          />
        ) : (
          <NamedCallDetail call={detail.data} accounts={accounts} suppliers={suppliers} />
        )}
      </div>
    </dialog>
  );
}

/** Only http(s) recordings become links: the path comes from the switch, never a javascript: URL. */
function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text, "https://portal.invalid"); // a relative path stays on this site; only the scheme matters
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function Row({ label, children, mono = false }: { label: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="grid grid-cols-[10rem_1fr] gap-3 py-1.5">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd className={`min-w-0 break-words text-sm ${mono ? "font-mono text-[13px]" : ""}`}>
        {children ?? <span className="text-slate-500">—</span>}
      </dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="py-2">
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-600">{title}</h3>
      <dl className="divide-y divide-slate-100">{children}</dl>
    </section>
  );
}

/** The detail with its destination's name asked from the server (the call's page has it already). */
function NamedCallDetail({ call, accounts, suppliers }: { call: Detail; accounts: NameMap; suppliers: NameMap }) {
  const nameOf = useDestinationNames([[call]], `call-${call.id}`);
  return <CallDetailBody call={call} accounts={accounts} suppliers={suppliers} destinationName={nameOf(call)} />;
}

/** The full record of a call: in the dialog, and on the call's own page (/calls/{id}). */
export function CallDetailBody({
  call,
  accounts = {},
  suppliers = {},
  destinationName,
}: {
  call: Detail;
  accounts?: NameMap;
  suppliers?: NameMap;
  /** The rate card's name of the called number's destination. */
  destinationName?: string;
}) {
  const cost = "buyCost" in call;
  const zone = useTimeZone();
  const status = callStatus({
    answered: call.answerTime !== null,
    hangupCause: call.hangupCause,
    q850Cause: call.q850Cause,
  });
  return (
    <div className="divide-y divide-slate-200">
      <Section title="Call">
        <Row label="Status">
          <span data-testid="call-status">
            <StatusBadge status={status} />
          </span>
        </Row>
        <Row label="Direction">
          <DirectionBadge direction={call.direction} />
        </Row>
        <Row label="From" mono>
          {formatPhoneNumber(call.from)}
        </Row>
        <Row label="To">
          <PhoneNumber number={call.to} name={destinationName} inline />
        </Row>
        <Row label={`Started (${zone.name})`}>
          <Time iso={call.startTime} />
        </Row>
        <Row label={`Answered (${zone.name})`}>{call.answerTime ? <Time iso={call.answerTime} /> : "Not answered"}</Row>
        <Row label={`Ended (${zone.name})`}>
          <Time iso={call.endTime} />
        </Row>
        <Row label="Duration">
          <span className="tabular-nums">
            {formatDuration(call.duration)} ({call.duration} s), billed {call.billDuration} s
          </span>
        </Row>
        <Row label="Hangup cause" mono>
          {call.hangupCause}
        </Row>
        <Row label="Q.850 cause">
          {call.q850Cause === null ? null : <span className="tabular-nums">{call.q850Cause}</span>}
        </Row>
        <Row label="PDD">{call.pdd === null ? null : <span className="tabular-nums">{call.pdd} s</span>}</Row>
      </Section>
      <Section title="Billing">
        <Row label="Price">
          <Price call={call} />
          {call.minChargeApplied ? <span className="ml-2 text-xs text-slate-600">(minimum charge)</span> : null}
        </Row>
        <Row label="Rated">{call.rated ? "Yes" : "No rate matched (not charged yet)"}</Row>
        <Row label="Matched prefix" mono>
          {call.matchedPrefix}
        </Row>
        <Row label="Sell rate">
          {call.sellRate === null ? null : formatRate(toMicros(call.sellRate), call.currency)}
        </Row>
        <Row label="Billing increment" mono>
          {call.billingIncrement}
        </Row>
        {/* The parts of the price (README, rating): max(minimum, connect fee + per-minute part). */}
        <Row label="Per-minute part">
          {call.usageCharge === null ? null : (
            <span className="tabular-nums">
              {formatPrice(toMicros(call.usageCharge), call.currency)} ({call.billDuration} s)
            </span>
          )}
        </Row>
        <Row label="Connect fee">
          {call.connectFee === null ? null : (
            <span className="tabular-nums">
              {formatPrice(toMicros(call.connectFee), call.currency)}
              {call.billDuration === 0 ? " (not charged: not answered)" : null}
            </span>
          )}
        </Row>
        <Row label="Minimum charge">
          {call.minCharge === null ? null : (
            <span className="tabular-nums">{formatPrice(toMicros(call.minCharge), call.currency)}</span>
          )}
        </Row>
        <Row label="Account">
          {accounts[call.billingGroupId] ? (
            <>
              {accounts[call.billingGroupId]}{" "}
              <span className="font-mono text-[13px] text-slate-600">({call.billingGroupId})</span>
            </>
          ) : (
            <span className="font-mono text-[13px]">{call.billingGroupId}</span>
          )}
        </Row>
        {cost ? (
          <>
            <Row label="Buy rate">
              {call.buyRate === null || call.buyRate === undefined
                ? null
                : formatRate(toMicros(call.buyRate), call.currency)}
            </Row>
            <Row label="Buy cost">
              <Money value={call.buyCost} currency={call.currency} />
            </Row>
            <Row label="Margin">
              <Money value={call.margin} currency={call.currency} signed />
            </Row>
            {/* A reseller's cost view has no supplier field at all (docs/contract.md §21): no row either. */}
            {"supplierId" in call ? (
              <Row label="Supplier">
                {call.supplierId ? (
                  <>
                    {suppliers[call.supplierId] ?? call.supplierId}{" "}
                    {suppliers[call.supplierId] ? (
                      <span className="font-mono text-[13px] text-slate-600">({call.supplierId})</span>
                    ) : null}
                  </>
                ) : null}
              </Row>
            ) : null}
          </>
        ) : null}
      </Section>
      <Section title="Network">
        <Row label="Account code" mono>
          {call.accountcode}
        </Row>
        <Row label="Network address" mono>
          {call.networkAddr}
        </Row>
        <Row label="Codecs" mono>
          {call.readCodec || call.writeCodec ? `${call.readCodec ?? "—"} in / ${call.writeCodec ?? "—"} out` : null}
        </Row>
        <Row label="Recording">
          {call.recordingUrl && isWebUrl(call.recordingUrl) ? (
            <a
              href={call.recordingUrl}
              className="text-brand-600 underline hover:text-brand-700"
              target="_blank"
              rel="noreferrer noopener"
            >
              Open recording
            </a>
          ) : call.recordingUrl ? (
            <span className="font-mono text-[13px]">{call.recordingUrl}</span>
          ) : (
            "Not recorded"
          )}
        </Row>
        <Row label="UUID" mono>
          {call.uuid}
        </Row>
      </Section>
    </div>
  );
}
