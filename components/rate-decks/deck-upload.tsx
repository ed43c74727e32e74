"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useRef, useState, type FormEvent } from "react";
import { ApiProblem } from "@/components/api/api-client";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, fieldErrorId, FieldError, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import type { DeckDiffJson, DeckImportJson } from "@/lib/rating/schemas";
import { DeckDiffView } from "./deck-diff-view";
import { DeckEffective } from "./deck-effective";
import { OwnerPicker, SIDES, useDeckOwners, type DeckSide } from "./deck-owners";

interface Problem {
  detail: string;
  errors?: { param: string; message: string }[];
}

/** POST a deck as text/csv with the session cookie (the browser adds Origin, which a change needs). */
async function postDeck<T>(path: string, csv: string, idempotencyKey?: string): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      accept: "application/json",
      "content-type": "text/csv",
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
    },
    body: csv,
  });
  const body = (await response.json().catch(() => ({}))) as Problem & { code?: string };
  if (!response.ok) {
    const where = body.errors?.map((e) => `${e.param}: ${e.message}`).join("; ");
    throw new ApiProblem(response.status, body.code ?? "internal", where || body.detail || `HTTP ${response.status}`);
  }
  return body as T;
}

interface Preview {
  owner: string;
  csv: string;
  fileName: string;
  effectiveFrom: string | null;
  diff: DeckDiffJson;
  /** One key per preview: a double click on Confirm, or a retry after a lost answer, imports once. */
  idempotencyKey: string;
}

/**
 * Upload a deck in two steps: the file and when it takes effect → the dry run's diff and margin warnings → Confirm
 * imports exactly that file (with an Idempotency-Key) → the history. Nothing is written before Confirm. `names`:
 * the accounts' and suppliers' names the warnings show.
 */
export function DeckUpload({
  side,
  initialOwner,
  names,
  exclude,
}: {
  side: DeckSide;
  initialOwner?: string;
  names?: Record<string, string>;
  /** An account not offered: a reseller's own (its parent prices it; the API answers 403). */
  exclude?: string;
}) {
  const id = useId();
  const s = SIDES[side];
  const queryClient = useQueryClient();
  const owners = useDeckOwners(side);
  const ownerList = owners.data?.filter((o) => o.id !== exclude);
  const [picked, setPicked] = useState(initialOwner ?? "");
  // No default: the person names the owner (or came from its history's "Upload deck" link).
  const owner = ownerList?.find((o) => o.id === picked)?.id ?? "";
  const ownerName = ownerList?.find((o) => o.id === owner)?.name ?? owner;
  const fileRef = useRef<HTMLInputElement>(null);
  const [when, setWhen] = useState("");
  const [minMargin, setMinMargin] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [done, setDone] = useState<DeckImportJson | null>(null);
  // The margin guard: rates below the parent's buy rates import only when the person says so (allowBelowCost).
  const [belowCostOk, setBelowCostOk] = useState(false);

  const base = (o: string) => `${s.base}/${encodeURIComponent(o)}/rate-decks`;
  const dryRun = useMutation({
    mutationFn: async ({ csv, fileName }: { csv: string; fileName: string }) => {
      const effectiveFrom = when ? new Date(when).toISOString() : null;
      const q = new URLSearchParams({ dryRun: "true" });
      if (effectiveFrom) q.set("effectiveFrom", effectiveFrom);
      if (minMargin.trim()) q.set("minMargin", minMargin.trim());
      const diff = await postDeck<DeckDiffJson>(`${base(owner)}?${q}`, csv);
      return { owner, csv, fileName, effectiveFrom, diff, idempotencyKey: crypto.randomUUID() } satisfies Preview;
    },
    onSuccess: (p) => {
      setBelowCostOk(false);
      setPreview(p);
    },
  });
  const confirm = useMutation({
    mutationFn: (p: Preview) => {
      // The instant the preview was made against: "now" would otherwise move on between preview and confirm.
      const q = new URLSearchParams({ effectiveFrom: p.effectiveFrom ?? p.diff.effectiveFrom });
      if (belowCostOk) q.set("allowBelowCost", "true");
      // One key per distinct request (the preview's key and this query): a retry replays its answer, and confirming
      // again with other options (the below-cost tick after a refusal) is another request, not a reused key.
      return postDeck<DeckImportJson>(`${base(p.owner)}?${q}`, p.csv, `${p.idempotencyKey}?${q}`);
    },
    onSuccess: (result) => {
      setDone(result);
      setPreview(null);
      void queryClient.invalidateQueries({ queryKey: ["decks", side] });
    },
  });

  async function onPreview(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const file = fileRef.current?.files?.[0];
    if (!file) {
      setFileError("Choose a CSV file.");
      return;
    }
    if (file.size > 5 * 1024 * 1024) {
      setFileError("The file is larger than 5 MiB; import it with the admin CLI.");
      return;
    }
    setFileError(null);
    dryRun.mutate({ csv: await file.text(), fileName: file.name });
  }

  if (owners.isError) {
    return (
      <Card>
        <LoadError title={`The ${s.noun}s could not be loaded.`} onRetry={() => owners.refetch()} />
      </Card>
    );
  }
  const fileId = `${id}-file`;
  const problem =
    dryRun.error instanceof ApiProblem ? dryRun.error.detail : dryRun.error ? "The preview failed." : null;
  return (
    <div className="flex flex-col gap-4">
      {done ? (
        <Card
          role="status"
          className="flex flex-col gap-2 border-green-200 bg-green-50 text-sm"
          data-testid="deck-imported"
        >
          <p className="font-medium text-green-900">
            Imported {done.imported.toLocaleString("en")} rates for {ownerName}, effective{" "}
            <DeckEffective iso={done.effectiveFrom} side={side} />.
          </p>
          <p>
            <Link
              href={`${s.page}?${s.param}=${encodeURIComponent(done.ownerId)}`}
              className="font-medium text-brand-700 underline"
            >
              See the {s.noun}&apos;s decks
            </Link>
          </p>
        </Card>
      ) : null}
      <Card as="section" aria-labelledby={`${id}-form`}>
        <CardTitle id={`${id}-form`}>1. Choose the deck</CardTitle>
        <form onSubmit={onPreview} className="mt-3 grid gap-3 sm:grid-cols-2" noValidate>
          {ownerList ? (
            <OwnerPicker
              id={`${id}-owner`}
              side={side}
              owners={ownerList}
              value={owner}
              onChange={(next) => {
                setPicked(next);
                setPreview(null);
              }}
            />
          ) : (
            <p className="text-sm text-slate-500">Loading {s.noun}s…</p>
          )}
          <Field id={fileId} label="CSV file (prefix,rate,increment[,description][,connectFee][,minCharge])">
            <input
              id={fileId}
              ref={fileRef}
              type="file"
              accept=".csv,text/csv,text/plain"
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? fieldErrorId(fileId) : undefined}
              className="block w-full text-sm"
              onChange={() => setPreview(null)}
            />
            {fileError ? <FieldError id={fieldErrorId(fileId)}>{fileError}</FieldError> : null}
          </Field>
          <Field id={`${id}-when`} label="Effective from (your time; empty: now)">
            <input
              id={`${id}-when`}
              type="datetime-local"
              step={1}
              value={when}
              onChange={(e) => {
                setWhen(e.target.value);
                setPreview(null);
              }}
              className={inputClass()}
            />
          </Field>
          <Field id={`${id}-margin`} label="Warn under this margin, % (optional)">
            <input
              id={`${id}-margin`}
              inputMode="decimal"
              value={minMargin}
              onChange={(e) => setMinMargin(e.target.value)}
              className={inputClass()}
            />
          </Field>
          <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
            <Button
              type="submit"
              variant="primary"
              disabled={!owner || dryRun.isPending}
              aria-describedby={owner ? undefined : `${id}-why`}
            >
              {dryRun.isPending ? "Comparing…" : "Preview changes"}
            </Button>
            {owner ? null : (
              <p id={`${id}-why`} className="text-sm text-slate-600" data-testid="deck-needs-owner">
                Choose the {s.noun} the deck is for first.
              </p>
            )}
          </div>
        </form>
        {problem ? (
          <p role="alert" className="mt-3 text-sm text-red-700" data-testid="deck-problem">
            {problem}
          </p>
        ) : null}
      </Card>
      {preview ? (
        <Card as="section" padding="none" aria-labelledby={`${id}-diff`} data-testid="deck-preview">
          <div className="px-4 py-3">
            <CardTitle id={`${id}-diff`}>
              2. Review: {preview.fileName} for {ownerName}, effective{" "}
              <DeckEffective iso={preview.diff.effectiveFrom} side={side} />
            </CardTitle>
          </div>
          <DeckDiffView diff={preview.diff} names={names} />
          {preview.diff.parentCosts && preview.diff.parentCosts.belowCost > 0 ? (
            <label className="mx-4 mt-3 flex items-start gap-2 text-sm text-red-800">
              <input
                type="checkbox"
                checked={belowCostOk}
                onChange={(e) => setBelowCostOk(e.target.checked)}
                className="mt-0.5"
              />
              Import the {preview.diff.parentCosts.belowCost.toLocaleString("en")} below-cost{" "}
              {preview.diff.parentCosts.belowCost === 1 ? "rate" : "rates"} anyway: each such call costs more than it
              earns.
            </label>
          ) : null}
          <div className="flex flex-wrap items-center gap-3 px-4 py-4">
            <Button variant="primary" onClick={() => confirm.mutate(preview)} disabled={confirm.isPending}>
              {confirm.isPending ? "Importing…" : "Confirm import"}
            </Button>
            <Button onClick={() => setPreview(null)} disabled={confirm.isPending}>
              Cancel
            </Button>
            {confirm.error ? (
              <p role="alert" className="text-sm text-red-700">
                {confirm.error instanceof ApiProblem ? confirm.error.detail : "The import failed. Try again."}
              </p>
            ) : null}
          </div>
        </Card>
      ) : null}
    </div>
  );
}
