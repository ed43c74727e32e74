"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { apiGet, apiSend } from "@/components/api/api-client";
import { Button } from "@/components/ui/button";
import { Card, CardTitle } from "@/components/ui/card";
import { Field, FieldError, fieldErrorId, inputClass } from "@/components/ui/field";
import { LoadError } from "@/components/ui/load-error";
import { NamedId } from "@/components/portal/named-id";
import { SecretOnce } from "@/components/ui/secret-once";
import { EVENT_TYPES, problemText, type Delivery, type WebhookEndpoint } from "./api";
import { DeliveryLog } from "./delivery-log";

const path = (id: string) => `/v1/webhook-endpoints/${encodeURIComponent(id)}`;

/**
 * The webhook endpoints in reach (a customer: its account's; platform staff: the picked account's, or every one):
 * add one (its signing secret shown once), send a test event, disable or enable, delete after a confirmation, and
 * open its delivery log. Each says which account it belongs to, by name (`names`: the account names in reach).
 */
export function WebhookEndpoints({
  account,
  platform,
  names,
}: {
  account: string | null;
  platform: boolean;
  names: Record<string, string>;
}) {
  const list = ["webhook-endpoints", account] as const;
  const queryClient = useQueryClient();
  const endpoints = useQuery({
    queryKey: list,
    queryFn: ({ signal }) =>
      apiGet<{ endpoints: WebhookEndpoint[] }>(
        `/v1/webhook-endpoints${platform && account ? `?account=${encodeURIComponent(account)}` : ""}`,
        signal,
      ),
  });
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: list });

  return (
    <div className="flex flex-col gap-4">
      {created ? (
        <CreatedSecret endpoint={created} onDone={() => setCreated(null)} />
      ) : (
        <AddEndpointForm
          account={platform ? account : null}
          owner={account}
          names={names}
          onCreated={(endpoint) => {
            setCreated(endpoint);
            setOpen(endpoint.id);
            refresh();
          }}
        />
      )}
      <Card padding="none" aria-labelledby="endpoints-title">
        <div className="px-4 py-3">
          <CardTitle id="endpoints-title">Webhook endpoints</CardTitle>
        </div>
        {endpoints.isError ? (
          <LoadError
            title="The endpoints could not be loaded."
            detail={problemText(endpoints.error)}
            onRetry={() => endpoints.refetch()}
          />
        ) : endpoints.isPending ? (
          <p className="px-4 py-6 text-center text-sm text-slate-500">Loading endpoints…</p>
        ) : endpoints.data.endpoints.length === 0 ? (
          <p className="px-4 py-6 text-center text-sm text-slate-500">No webhook endpoints yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100 border-t border-slate-200" data-testid="webhook-endpoints">
            {endpoints.data.endpoints.map((endpoint) => (
              <EndpointRow
                key={endpoint.id}
                endpoint={endpoint}
                names={platform ? names : undefined}
                open={open === endpoint.id}
                onToggle={() => setOpen((now) => (now === endpoint.id ? null : endpoint.id))}
                onChanged={refresh}
              />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function EndpointRow({
  endpoint,
  names,
  open,
  onToggle,
  onChanged,
}: {
  endpoint: WebhookEndpoint;
  /** Platform staff: the account names, to say whose endpoint each is. */
  names?: Record<string, string>;
  open: boolean;
  onToggle: () => void;
  onChanged: () => void;
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const logKey = ["webhook-deliveries", endpoint.id];
  const toggle = useMutation({
    mutationFn: () => apiSend<WebhookEndpoint>("PATCH", path(endpoint.id), { disabled: !endpoint.disabled }),
    onSuccess: onChanged,
  });
  const remove = useMutation({
    mutationFn: () => apiSend("DELETE", path(endpoint.id)),
    onSuccess: onChanged,
  });
  const test = useMutation({
    mutationFn: () => apiSend<Delivery>("POST", `${path(endpoint.id)}/test`),
    onSuccess: () => {
      if (!open) onToggle();
      void queryClient.invalidateQueries({ queryKey: logKey });
    },
  });
  const failed = toggle.error ?? remove.error ?? test.error;
  return (
    <li className="flex flex-col gap-2 px-4 py-3" data-endpoint-id={endpoint.id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="font-mono text-sm break-all text-slate-900">{endpoint.url}</p>
          <p className="text-xs text-slate-600">
            {endpoint.eventTypes.includes("*") ? "Every event" : endpoint.eventTypes.join(", ")}
            {endpoint.description ? ` · ${endpoint.description}` : ""}
            {endpoint.billingGroupId === null ? (
              " · every account (platform)"
            ) : names ? (
              <>
                {" · "}
                <NamedId id={endpoint.billingGroupId} names={names} />
              </>
            ) : null}
            {" · secret "}
            <span className="font-mono">{endpoint.secretPrefix}…</span>
          </p>
          <p className="text-xs" data-testid="endpoint-state">
            {endpoint.disabled ? (
              <span className="font-medium text-amber-800">Disabled: events wait until it is enabled</span>
            ) : (
              <span className="text-emerald-700">Enabled</span>
            )}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Button onClick={() => test.mutate()} disabled={test.isPending}>
            Send test event
          </Button>
          <Button onClick={onToggle} aria-expanded={open}>
            {open ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button onClick={() => toggle.mutate()} disabled={toggle.isPending}>
            {endpoint.disabled ? "Enable" : "Disable"}
          </Button>
          {confirming ? (
            <span role="group" aria-label="Confirm deletion" className="inline-flex items-center gap-2">
              <Button
                variant="primary"
                className="bg-red-700 hover:bg-red-800"
                disabled={remove.isPending}
                onClick={() => remove.mutate()}
              >
                Delete endpoint
              </Button>
              <Button onClick={() => setConfirming(false)}>Cancel</Button>
            </span>
          ) : (
            <Button onClick={() => setConfirming(true)} aria-label={`Delete ${endpoint.url}`}>
              Delete
            </Button>
          )}
        </div>
      </div>
      {failed ? (
        <p role="alert" className="text-sm text-red-700">
          {problemText(failed)}
        </p>
      ) : null}
      {open ? <DeliveryLog endpointId={endpoint.id} /> : null}
    </li>
  );
}

function AddEndpointForm({
  account,
  owner,
  names,
  onCreated,
}: {
  /** The account a platform session adds the endpoint for (sent as billingGroupId); null: its own, or platform-wide. */
  account: string | null;
  /** The account the new endpoint belongs to (null: platform-wide), said on the form. */
  owner: string | null;
  names: Record<string, string>;
  onCreated: (endpoint: WebhookEndpoint) => void;
}) {
  const id = useId();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState<string[]>(["*"]);
  const create = useMutation({
    mutationFn: () =>
      apiSend<WebhookEndpoint>("POST", "/v1/webhook-endpoints", {
        url: url.trim(),
        eventTypes: types,
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(account ? { billingGroupId: account } : {}),
      }),
    onSuccess: (endpoint) => {
      setUrl("");
      setDescription("");
      setTypes(["*"]);
      onCreated(endpoint);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const choose = (type: string, on: boolean) =>
    setTypes((now) => {
      if (type === "*") return on ? ["*"] : [];
      const rest = now.filter((t) => t !== "*" && t !== type);
      return on ? [...rest, type] : rest;
    });
  return (
    <Card as="form" onSubmit={submit} aria-labelledby={`${id}-title`} className="flex flex-col gap-3">
      <CardTitle id={`${id}-title`}>Add a webhook endpoint</CardTitle>
      <p className="text-sm text-slate-700" data-testid="endpoint-account">
        {owner ? (
          <>
            For <NamedId id={owner} names={names} />: its events only
          </>
        ) : (
          "Platform-wide: the events of every account"
        )}
      </p>
      <div className="grid gap-3 sm:grid-cols-[minmax(16rem,28rem)_minmax(10rem,16rem)]">
        <Field id={`${id}-url`} label="Endpoint URL">
          <input
            id={`${id}-url`}
            type="url"
            required
            className={inputClass({ invalid: create.isError })}
            value={url}
            placeholder="https://example.com/callbook-webhooks"
            aria-describedby={create.isError ? fieldErrorId(id) : undefined}
            onChange={(e) => setUrl(e.target.value)}
          />
        </Field>
        <Field id={`${id}-description`} label="Description (optional)">
          <input
            id={`${id}-description`}
            className={inputClass()}
            value={description}
            maxLength={200}
            onChange={(e) => setDescription(e.target.value)}
          />
        </Field>
      </div>
      <fieldset>
        <legend className="text-xs font-medium text-slate-600">Events to send</legend>
        <div className="mt-1 flex flex-wrap gap-x-5 gap-y-1">
          {["*", ...EVENT_TYPES].map((type) => (
            <label key={type} className="inline-flex items-center gap-1.5 text-sm">
              <input type="checkbox" checked={types.includes(type)} onChange={(e) => choose(type, e.target.checked)} />
              <span className="font-mono text-xs">{type === "*" ? "all events" : type}</span>
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
        <Button type="submit" variant="primary" disabled={create.isPending || types.length === 0 || !url.trim()}>
          Add endpoint
        </Button>
      </div>
    </Card>
  );
}

/** The new endpoint's signing secret, shown this once. */
function CreatedSecret({ endpoint, onDone }: { endpoint: WebhookEndpoint; onDone: () => void }) {
  return (
    <SecretOnce
      title="Endpoint added"
      note="Its signing secret verifies that events come from us (Standard Webhooks). Copy it now: it is not shown again."
      secret={endpoint.secret ?? ""}
      testId="new-endpoint-secret"
      onDone={onDone}
    />
  );
}
