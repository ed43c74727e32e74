"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { apiGet, apiSend, ApiProblem } from "@/components/api/api-client";
import { Time } from "@/components/portal/time-zone";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, fieldErrorId, FieldError, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { SecretOnce } from "@/components/ui/secret-once";
import type { ApiKey, ApiKeyList, CreatedApiKeyBody } from "@/lib/keys/schemas";

const LIST = ["api-keys"] as const;

/** What a scope lets a key do, for the create form. */
const SCOPE_HELP: Record<string, string> = {
  "calls:read": "read calls, balances, rates and reports",
  "calls:read_cost": "also buy cost, margin and suppliers",
  "cdrs:write": "report calls (a switch)",
  "keys:read": "list API keys",
  "keys:write": "create and revoke API keys",
  "audit:read": "read the audit log",
  "limits:write": "tighten the account's call and spend limits",
};

function statusOf(key: ApiKey, now: number): "revoked" | "expired" | "live" {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return "expired";
  return "live";
}

/** The end of a picked day in the viewer's zone: a key "expiring on 31 Dec" works all of that day. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

function problemText(error: unknown): string {
  return error instanceof ApiProblem ? error.detail : "The request failed. Try again.";
}

/**
 * The keys of the session's account (platform: every key): when each was last used, a form that makes one with the
 * session's own scopes at most (docs/contract.md §13) and shows its secret once, and revocation after a confirmation.
 * Everything goes through /v1 with the session cookie, as an API client would.
 */
export function ApiKeysManager({
  scopes,
  canWrite,
  account,
}: {
  scopes: string[];
  canWrite: boolean;
  /** Platform staff on an account's console page: that account's keys, and new keys made for it. */
  account?: string;
}) {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: [...LIST, account ?? null],
    queryFn: ({ signal }) =>
      apiGet<ApiKeyList>(account ? `/v1/api-keys?account=${encodeURIComponent(account)}` : "/v1/api-keys", signal),
  });
  const [created, setCreated] = useState<CreatedApiKeyBody | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => apiSend<ApiKey>("DELETE", `/v1/api-keys/${encodeURIComponent(id)}`),
    onSuccess: () => {
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: LIST });
    },
  });
  // Expired as of the list's fetch: the list is what the page shows.
  const now = list.dataUpdatedAt;

  return (
    <div className="flex flex-col gap-4">
      {canWrite ? (
        created ? (
          <CreatedSecret created={created} onDone={() => setCreated(null)} />
        ) : (
          <CreateKeyForm
            scopes={account ? scopes.filter((s) => s in SCOPE_HELP) : scopes}
            account={account}
            onCreated={(key) => {
              setCreated(key);
              void queryClient.invalidateQueries({ queryKey: LIST });
            }}
          />
        )
      ) : null}
      <Card padding="none" aria-labelledby="keys-title">
        <div className="px-4 py-3">
          <CardTitle id="keys-title">Keys</CardTitle>
        </div>
        {list.isError ? (
          <LoadError
            title="The keys could not be loaded."
            detail={problemText(list.error)}
            onRetry={() => list.refetch()}
          />
        ) : (
          // Focusable so a keyboard can scroll it on a phone even when no row holds a control (no keys yet).
          <div
            className="overflow-x-auto focus-visible:outline-2 focus-visible:outline-brand-700"
            tabIndex={0}
            role="region"
            aria-label="Keys table"
          >
            <table className="w-full text-left text-sm" data-testid="api-keys">
              <thead className="border-y border-slate-200 bg-slate-50 text-xs text-slate-600">
                <tr>
                  <th className="px-4 py-2 font-medium">Name</th>
                  <th className="px-4 py-2 font-medium">Key</th>
                  <th className="px-4 py-2 font-medium">Scopes</th>
                  <th className="px-4 py-2 font-medium">Created</th>
                  <th className="px-4 py-2 font-medium">Expires</th>
                  <th className="px-4 py-2 font-medium">Last used</th>
                  <th className="px-4 py-2 font-medium">Status</th>
                  {canWrite ? (
                    <th className="px-4 py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  ) : null}
                </tr>
              </thead>
              <tbody>
                {list.isPending ? (
                  <tr>
                    <td colSpan={8} className="px-4 py-6 text-center text-slate-500">
                      Loading keys…
                    </td>
                  </tr>
                ) : list.data.apiKeys.length === 0 ? (
                  <tr>
                    <td colSpan={8} className="px-4 py-6 text-center text-slate-500">
                      No keys yet.
                    </td>
                  </tr>
                ) : (
                  list.data.apiKeys.map((key) => {
                    const status = statusOf(key, now);
                    return (
                      <tr key={key.id} data-key-id={key.id} className="border-b border-slate-100 align-top">
                        <td className="px-4 py-2 font-medium text-slate-900">{key.name ?? "—"}</td>
                        <td className="px-4 py-2 font-mono text-xs">{key.prefix}</td>
                        <td className="px-4 py-2 text-xs">{key.scopes.join(", ")}</td>
                        <td className="px-4 py-2 whitespace-nowrap">
                          <Time iso={key.createdAt} />
                        </td>
                        <td className="px-4 py-2 whitespace-nowrap">
                          {key.expiresAt ? <Time iso={key.expiresAt} /> : "Never"}
                        </td>
                        <td className="px-4 py-2 whitespace-nowrap" data-testid="last-used">
                          {key.lastUsedAt ? <Time iso={key.lastUsedAt} /> : "Never"}
                        </td>
                        <td className="px-4 py-2" data-testid="key-status">
                          {status === "live" ? "Active" : status === "revoked" ? "Revoked" : "Expired"}
                        </td>
                        {canWrite ? (
                          <td className="px-4 py-2 text-right whitespace-nowrap">
                            {status !== "revoked" && confirming !== key.id ? (
                              <Button
                                onClick={() => setConfirming(key.id)}
                                aria-label={`Revoke ${key.name ?? key.prefix}`}
                              >
                                Revoke
                              </Button>
                            ) : null}
                            {confirming === key.id ? (
                              <span
                                role="group"
                                aria-label="Confirm revocation"
                                className="inline-flex items-center gap-2"
                              >
                                <span className="text-xs text-slate-700">
                                  Requests with it will be refused at once.
                                </span>
                                <Button
                                  variant="primary"
                                  disabled={revoke.isPending}
                                  onClick={() => revoke.mutate(key.id)}
                                  className="bg-red-700 hover:bg-red-800"
                                >
                                  Revoke key
                                </Button>
                                <Button onClick={() => setConfirming(null)}>Cancel</Button>
                              </span>
                            ) : null}
                          </td>
                        ) : null}
                      </tr>
                    );
                  })
                )}
              </tbody>
            </table>
          </div>
        )}
        {revoke.isError ? (
          <p role="alert" className="px-4 py-2 text-sm text-red-700">
            {problemText(revoke.error)}
          </p>
        ) : null}
      </Card>
    </div>
  );
}

function CreateKeyForm({
  scopes,
  account,
  onCreated,
}: {
  scopes: string[];
  account?: string;
  onCreated: (key: CreatedApiKeyBody) => void;
}) {
  const id = useId();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<string[]>(scopes.includes("calls:read") ? ["calls:read"] : []);
  const [expires, setExpires] = useState("");
  const create = useMutation({
    mutationFn: () =>
      apiSend<CreatedApiKeyBody>("POST", "/v1/api-keys", {
        name,
        scopes: chosen,
        ...(account ? { billingGroupId: account } : {}),
        ...(expires ? { expiresAt: endOfDay(expires) } : {}),
      }),
    onSuccess: (key) => {
      setName("");
      setExpires("");
      onCreated(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const nameId = `${id}-name`;
  const expiresId = `${id}-expires`;
  const today = new Date().toISOString().slice(0, 10);
  return (
    <Card as="form" onSubmit={submit} aria-labelledby={`${id}-title`} className="flex flex-col gap-3">
      <CardTitle id={`${id}-title`}>Create a key</CardTitle>
      <div className="grid gap-3 sm:grid-cols-[minmax(12rem,20rem)_minmax(10rem,14rem)]">
        <Field id={nameId} label="Name">
          <input
            id={nameId}
            className={inputClass()}
            value={name}
            required
            maxLength={100}
            placeholder="e.g. billing export"
            onChange={(e) => setName(e.target.value)}
          />
        </Field>
        <Field id={expiresId} label="Expires on (optional)">
          <input
            id={expiresId}
            type="date"
            min={today}
            className={inputClass()}
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
          />
        </Field>
      </div>
      <fieldset>
        <legend className="text-xs font-medium text-slate-600">Scopes (at most your own)</legend>
        <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
          {scopes.map((scope) => (
            <label key={scope} className="inline-flex items-center gap-1.5 text-sm">
              <input
                type="checkbox"
                checked={chosen.includes(scope)}
                onChange={(e) =>
                  setChosen((now) => (e.target.checked ? [...now, scope] : now.filter((s) => s !== scope)))
                }
              />
              <span className="font-mono text-xs">{scope}</span>
              <span className="text-xs text-slate-500">{SCOPE_HELP[scope] ?? ""}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {create.isError ? (
        <FieldError id={fieldErrorId(id)}>
          <span role="alert">{problemText(create.error)}</span>
        </FieldError>
      ) : null}
      <div>
        <Button
          type="submit"
          variant="primary"
          disabled={create.isPending || chosen.length === 0 || name.trim() === ""}
        >
          Create key
        </Button>
      </div>
    </Card>
  );
}

/** The new key's secret, shown this once: it is not kept anywhere (only its hash is). */
function CreatedSecret({ created, onDone }: { created: CreatedApiKeyBody; onDone: () => void }) {
  return (
    <SecretOnce
      title={<>Key “{created.name}” created</>}
      note="Copy it now: this is the only time it is shown. Keep it secret; anyone holding it can do what its scopes allow."
      secret={created.secret}
      testId="new-key-secret"
      onDone={onDone}
    />
  );
}
