"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { apiGet, apiSend } from "@/components/api/api-client";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { NamedId } from "@/components/portal/named-id";
import { formatPrice, toMicros } from "@/lib/portal/format";
import { problemText, type Thresholds } from "./api";

/** The account's low-balance thresholds, edited as one comma-separated list (PUT /v1/alert-thresholds). */
export function ThresholdsCard({ account, platform, name }: { account: string; platform: boolean; name?: string }) {
  const id = useId();
  const key = ["alert-thresholds", account] as const;
  const queryClient = useQueryClient();
  const current = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => apiGet<Thresholds>(`/v1/alert-thresholds?account=${encodeURIComponent(account)}`, signal),
  });
  const [text, setText] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (amounts: string[]) =>
      apiSend<Thresholds>("PUT", "/v1/alert-thresholds", {
        ...(platform ? { billingGroupId: account } : {}),
        thresholds: amounts,
      }),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, saved);
      setText(null);
    },
  });
  const shown = text ?? current.data?.thresholds.map((t) => String(t.amount)).join(", ") ?? "";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      shown
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    );
  };
  const inputId = `${id}-amounts`;
  return (
    <Card as="form" onSubmit={submit} aria-labelledby={`${id}-title`} className="flex flex-col gap-3">
      <CardTitle id={`${id}-title`}>Low-balance thresholds</CardTitle>
      <p className="text-sm text-slate-700" data-testid="thresholds-account">
        For <NamedId id={account} names={name ? { [account]: name } : undefined} />
      </p>
      {current.isError ? (
        <LoadError title="The thresholds could not be loaded." detail={problemText(current.error)} />
      ) : (
        <>
          <p className="text-sm text-slate-600">
            A <code className="font-mono text-xs">balance.low</code> event is sent when the balance falls to or below a
            threshold, <code className="font-mono text-xs">balance.recovered</code> when it rises above it again.
          </p>
          <div className="flex flex-wrap items-end gap-3">
            <Field
              id={inputId}
              label={`Thresholds${current.data ? ` (${current.data.currency})` : ""}, comma-separated`}
            >
              <input
                id={inputId}
                className={inputClass()}
                value={shown}
                placeholder="e.g. 50, 10, 0"
                disabled={current.isPending}
                aria-describedby={save.isError ? fieldErrorId(id) : undefined}
                onChange={(e) => setText(e.target.value)}
              />
            </Field>
            <Button type="submit" variant="primary" disabled={save.isPending || current.isPending}>
              Save thresholds
            </Button>
          </div>
          {current.data && current.data.thresholds.length > 0 ? (
            <ul className="flex flex-wrap gap-2 text-xs" data-testid="thresholds">
              {current.data.thresholds.map((t) => (
                <li
                  key={t.amount}
                  className={`rounded-full px-2 py-0.5 ${t.crossed ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-700"}`}
                >
                  {/* A balance level, read like the balance ("$50.00"), exact past the cent if set so. */}
                  {formatPrice(toMicros(t.amount), current.data.currency)} {t.crossed ? "· balance below" : ""}
                </li>
              ))}
            </ul>
          ) : null}
          {save.isSuccess ? (
            <p role="status" className="text-sm text-emerald-700">
              Thresholds saved.
            </p>
          ) : null}
          {save.isError ? (
            <FieldError id={fieldErrorId(id)}>
              <span role="alert">{problemText(save.error)}</span>
            </FieldError>
          ) : null}
        </>
      )}
    </Card>
  );
}
