"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { ApiProblem, apiGet, apiSend } from "@/components/api/api-client";
import { problemText } from "@/components/alerts/api";
import { AccountSwitcher, type AccountChoice } from "@/components/portal/account-switcher";
import { Time } from "@/components/portal/time-zone";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { LoadMore } from "@/components/ui/load-more";
import { liveState } from "@/lib/limits/live-state";
import type { Limits, RefusalPage } from "@/lib/limits/schemas";
import { formatMicros, parseMicros } from "@/lib/money/micros";
import { formatAmount } from "@/lib/portal/format";
import { limitsKey, limitsQuery } from "./api";

type Layer = Limits["operator"];
type Window = Layer["distinctDestinations"];

/**
 * An account's limits (GET /v1/limits): every layer, rule by rule, with what counts against them now; a form for the
 * layer the session writes (PUT /v1/limits: a customer's owners and admins their own, which may only tighten the
 * others; a reseller its customer's provider layer; platform staff the operator's); the refusals (GET /v1/authorizations/refusals, "Load more").
 */
export function LimitsManager({
  account,
  platform,
  accounts,
  canWrite,
  provider = false,
}: {
  account: string | null;
  platform: boolean;
  accounts?: AccountChoice[];
  canWrite: boolean;
  /** A reseller on its customer's account: it writes that customer's provider (reseller's) layer. */
  provider?: boolean;
}) {
  const limits = useQuery(limitsQuery(account, platform));
  return (
    <div className="flex flex-col gap-4">
      {accounts ? (
        <div className="max-w-sm">
          <AccountSwitcher accounts={accounts} selected={account} showLabel />
        </div>
      ) : null}
      {limits.isError ? (
        <LoadError title="The limits could not be loaded." detail={problemText(limits.error)} />
      ) : limits.data ? (
        <>
          <RulesTable limits={limits.data} />
          {canWrite ? (
            <LayerForm limits={limits.data} platform={platform} provider={provider} key={limits.data.billingGroupId} />
          ) : null}
        </>
      ) : (
        <p className="text-sm text-slate-600">Loading the limits…</p>
      )}
      {account !== null || !platform ? <Refusals account={platform ? account : null} /> : null}
    </div>
  );
}

const count = (n: number | null) => (n === null ? "No limit" : String(n));
const windowText = (w: Window) => (w === null ? "No limit" : `${w.max} per ${w.windowSeconds} s`);
const prefixes = (list: string[] | null, none: string) => (list === null || list.length === 0 ? none : list.join(", "));

function RulesTable({ limits }: { limits: Limits }) {
  const { operator, providers, customer, currency, timeZone } = limits;
  const money = (amount: number | null) => (amount === null ? "No limit" : formatAmount(parseMicros(amount), currency));
  const state = liveState(limits);
  // The layers shown, from the top: the operator's, each reseller's above the account (furthest first), its own.
  const above = [...providers].reverse();
  const layers: Layer[] = [operator, ...above, customer];
  const headers = [
    "Operator's",
    ...above.map((p) => (p.depth === 1 ? "Reseller's" : `Reseller's, ${p.depth} up`)),
    "Customer's",
  ];
  const each = (cell: (layer: Layer) => string) => layers.map(cell);
  const rows: [string, string[], string][] = [
    ["Calls in progress", each((l) => count(l.maxConcurrentCalls)), String(state.concurrentCalls.now)],
    ["Calls per second", each((l) => count(l.callsPerSecond)), "–"],
    ["Spend per day", each((l) => money(l.dailySpend)), formatAmount(state.today.spentMicros, currency)],
    ["Spend per month", each((l) => money(l.monthlySpend)), formatAmount(state.month.spentMicros, currency)],
    ["Blocked destinations", each((l) => prefixes(l.blockedPrefixes, "None")), "–"],
    ["Allowed destinations", each((l) => prefixes(l.allowedPrefixes, "Any")), "–"],
    ["Distinct destinations", each((l) => windowText(l.distinctDestinations)), "–"],
    ["Calls to one prefix", each((l) => windowText(l.callsPerPrefix)), "–"],
    ["A fraud rule disables the account", each((l) => (l === operator ? (l.disableOnFraud ? "Yes" : "No") : "–")), "–"],
  ];
  return (
    <Card aria-labelledby="limits-rules-title" padding="none">
      <div className="px-4 pt-4">
        <CardTitle id="limits-rules-title">Rules</CardTitle>
        <p className="mt-1 text-sm text-slate-600">
          Every rule of every layer holds: the operator sets theirs,{" "}
          {providers.length === 0
            ? ""
            : providers.length === 1
              ? "the reseller the account buys through may only tighten them, "
              : "each reseller above the account may only tighten them and those above it, "}
          the account&apos;s owners and admins may only tighten them. Days and months are counted in {timeZone}; open
          reservations count as spent.
        </p>
      </div>
      <div className="overflow-x-auto" role="region" aria-label="Rules table" tabIndex={0}>
        <table className="mt-3 w-full text-left text-sm" data-testid="limits-rules">
          <thead className="bg-slate-50 text-xs text-slate-600">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">
                Rule
              </th>
              {headers.map((header) => (
                <th key={header} scope="col" className="px-4 py-2 font-medium">
                  {header}
                </th>
              ))}
              <th scope="col" className="px-4 py-2 font-medium">
                Now
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map(([rule, cells, now]) => (
              <tr key={rule}>
                <th scope="row" className="px-4 py-2 font-medium text-slate-800">
                  {rule}
                </th>
                {cells.map((cell, i) => (
                  <td key={headers[i]} className="px-4 py-2 tabular-nums">
                    {cell}
                  </td>
                ))}
                <td className="px-4 py-2 tabular-nums">{now}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

const FIELDS = [
  ["maxConcurrentCalls", "Calls in progress"],
  ["callsPerSecond", "Calls per second"],
  ["dailySpend", "Spend per day"],
  ["monthlySpend", "Spend per month"],
  ["blockedPrefixes", "Blocked prefixes, comma-separated"],
  ["allowedPrefixes", "Only these prefixes, comma-separated"],
] as const;
type Draft = Record<(typeof FIELDS)[number][0], string>;

function draftOf(layer: Layer): Draft {
  const text = (n: number | null) => (n === null ? "" : String(n));
  const amount = (n: number | null) => (n === null ? "" : formatMicros(parseMicros(n)));
  return {
    maxConcurrentCalls: text(layer.maxConcurrentCalls),
    callsPerSecond: text(layer.callsPerSecond),
    dailySpend: amount(layer.dailySpend),
    monthlySpend: amount(layer.monthlySpend),
    blockedPrefixes: layer.blockedPrefixes.join(", "),
    allowedPrefixes: layer.allowedPrefixes?.join(", ") ?? "",
  };
}

/** Empty is "no limit"; a count that is not digits goes as typed, so the API's 400 names it (never a silent null). */
function bodyOf(draft: Draft, kept: Layer) {
  const count = (t: string) => (t.trim() === "" ? null : /^\d+$/.test(t.trim()) ? Number(t.trim()) : t);
  const amount = (t: string) => (t.trim() === "" ? null : t.trim());
  const list = (t: string) =>
    t
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
  return {
    maxConcurrentCalls: count(draft.maxConcurrentCalls),
    callsPerSecond: count(draft.callsPerSecond),
    dailySpend: amount(draft.dailySpend),
    monthlySpend: amount(draft.monthlySpend),
    blockedPrefixes: list(draft.blockedPrefixes),
    allowedPrefixes: draft.allowedPrefixes.trim() === "" ? null : list(draft.allowedPrefixes),
    // The window rules are not edited here: a PUT replaces the whole layer, so they go back as they are.
    distinctDestinations: kept.distinctDestinations,
    callsPerPrefix: kept.callsPerPrefix,
    disableOnFraud: kept.disableOnFraud,
  };
}

/** The API's answer, with the fields it names: "maxConcurrentCalls: ...". */
function refusedText(error: unknown): string {
  const fields = error instanceof ApiProblem ? error.errors.map((e) => `${e.param}: ${e.message}`) : [];
  return [problemText(error), ...fields].join(" ");
}

/** The layer the session writes: a reseller its customer's provider layer, platform staff the operator's, else its own. */
function layerOf(limits: Limits, platform: boolean, provider: boolean): Layer {
  if (provider) return limits.provider ?? limits.customer;
  return platform ? limits.operator : limits.customer;
}

function LayerForm({ limits, platform, provider }: { limits: Limits; platform: boolean; provider: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const layer = layerOf(limits, platform, provider);
  const [draft, setDraft] = useState<Draft>(() => draftOf(layer));
  const save = useMutation({
    mutationFn: () =>
      apiSend<Limits>("PUT", "/v1/limits", {
        ...(platform ? { billingGroupId: limits.billingGroupId } : {}),
        ...bodyOf(draft, layer),
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(limitsKey(platform ? limits.billingGroupId : null), saved);
      setDraft(draftOf(layerOf(saved, platform, provider)));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Card as="form" onSubmit={submit} aria-labelledby={`${id}-title`} className="flex flex-col gap-3">
      <CardTitle id={`${id}-title`}>
        {provider ? "Your limits on this customer" : platform ? "The operator's limits" : "Your limits"}
      </CardTitle>
      <p className="text-sm text-slate-600">
        {provider
          ? "Your own layer on this customer: it may only tighten the operator's and those of resellers above you; the resellers between you and the customer, and the customer, may only tighten it."
          : platform
            ? "The operator's layer of this account: the customer may only tighten it."
            : "Your own layer: it may only tighten the operator's. Empty: no limit of yours."}{" "}
        Amounts in {limits.currency}.
      </p>
      <div className="grid gap-3 sm:grid-cols-2">
        {FIELDS.map(([name, label]) => (
          <Field key={name} id={`${id}-${name}`} label={label}>
            <input
              id={`${id}-${name}`}
              name={name}
              className={inputClass()}
              value={draft[name]}
              inputMode={name.endsWith("Prefixes") ? "text" : "decimal"}
              aria-describedby={save.isError ? fieldErrorId(id) : undefined}
              onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
            />
          </Field>
        ))}
      </div>
      <div>
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save limits
        </Button>
      </div>
      {save.isSuccess ? (
        <p role="status" className="text-sm text-emerald-700">
          Limits saved.
        </p>
      ) : null}
      {save.isError ? (
        <FieldError id={fieldErrorId(id)}>
          <span role="alert">{refusedText(save.error)}</span>
        </FieldError>
      ) : null}
    </Card>
  );
}

function Refusals({ account }: { account: string | null }) {
  const query = new URLSearchParams([["pageSize", "20"], ...(account ? [["account", account]] : [])]);
  const pages = useInfiniteQuery({
    queryKey: ["limit-refusals", account],
    initialPageParam: `/v1/authorizations/refusals?${query}`,
    queryFn: ({ pageParam, signal }) => apiGet<RefusalPage>(pageParam, signal),
    getNextPageParam: (last) => last.nextPageUrl ?? undefined,
  });
  const refusals = pages.data?.pages.flatMap((p) => p.refusals) ?? [];
  return (
    <Card aria-labelledby="limits-refusals-title" padding="none">
      <div className="px-4 pt-4">
        <CardTitle id="limits-refusals-title">Recent refusals</CardTitle>
      </div>
      {pages.isError ? (
        <div className="p-4">
          <LoadError title="The refusals could not be loaded." detail={problemText(pages.error)} />
        </div>
      ) : pages.isPending ? (
        <p className="p-4 text-sm text-slate-600">Loading…</p>
      ) : refusals.length === 0 ? (
        <p className="p-4 text-sm text-slate-600">No call has been refused by a limit.</p>
      ) : (
        <div className="overflow-x-auto" role="region" aria-label="Refusals table" tabIndex={0}>
          <table className="mt-3 w-full text-left text-sm" data-testid="limits-refusals">
            <thead className="bg-slate-50 text-xs text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  When
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Destination
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Limit
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Detail
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {refusals.map((r) => (
                <tr key={r.id}>
                  <td className="whitespace-nowrap px-4 py-2">
                    <Time iso={r.createdAt} />
                  </td>
                  <td className="px-4 py-2 font-mono text-xs">{r.destination}</td>
                  <td className="px-4 py-2">
                    <code className="text-xs">{r.code}</code>
                  </td>
                  <td className="px-4 py-2 text-slate-700">{r.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadMore pages={pages} />
    </Card>
  );
}
