import {
  AlertsInputError,
  addWebhookEndpoint,
  listBalanceThresholds,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  setBalanceThresholds,
  type WebhookEndpointInfo,
} from "@/lib/alerts/webhooks";
import { WebhookTargetError } from "@/lib/alerts/url-guard";
import { ALL_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "@/lib/alerts/event-types";
import { CLI_ACTOR } from "@/lib/audit/actor";
import type { ChangeContext } from "@/lib/billing/change-context";
import { formatMicros, parseMicros } from "@/lib/money/micros";
import { requireFlag, UsageError, type AdminCommand } from "./command";

// Balance alerts (README "Prepaid authorizations and balance alerts"): webhook endpoints and per-group low-balance
// thresholds. The same domain functions as /v1/webhook-endpoints and /v1/alert-thresholds (lib/alerts), as the
// platform, audited with the CLI as actor.

const BY_CLI: ChangeContext = { actor: CLI_ACTOR, address: null };

function eventTypesFlag(value: unknown): string[] | undefined {
  if (typeof value !== "string") return undefined;
  const types = [
    ...new Set(
      value
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
  const known: readonly string[] = [ALL_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES];
  const unknown = types.filter((t) => !known.includes(t));
  if (types.length === 0 || unknown.length > 0)
    throw new UsageError(`--events: one or more of ${known.join(", ")} (got ${value})`);
  return types;
}

function endpointJson(e: WebhookEndpointInfo, showSecrets: boolean) {
  return {
    id: e.id,
    url: e.url,
    billingGroupId: e.billingGroupId,
    description: e.description,
    eventTypes: e.eventTypes,
    disabled: e.disabledAt !== null,
    createdAt: e.createdAt.toISOString(),
    secrets: e.secrets.map((s) => ({
      // Full secrets only where they are needed (add, rotate); a listing shows enough to tell them apart.
      secret: showSecrets ? s.secret : `${s.secret.slice(0, 10)}...`,
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt?.toISOString() ?? null,
    })),
  };
}

/** Domain refusals are the operator's input errors: exit 2 with the message. */
async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof AlertsInputError || e instanceof WebhookTargetError) throw new UsageError(e.message);
    throw e;
  }
}

const thresholdsUsage = "groups thresholds --group ID [--set 50,10,0 | --clear]";

export const webhookCommands: AdminCommand[] = [
  {
    name: "webhooks add",
    usage: "webhooks add --url https://... [--group ID] [--description D] [--events balance.low,balance.recovered | *]",
    options: {
      url: { type: "string" },
      group: { type: "string" },
      description: { type: "string" },
      events: { type: "string" },
    },
    async run(db, flags) {
      const url = requireFlag(flags, "url", this.usage);
      const eventTypes = eventTypesFlag(flags.events);
      const endpoint = await asUsage(() =>
        addWebhookEndpoint(
          db,
          {
            url,
            billingGroupId: typeof flags.group === "string" ? flags.group : null,
            description: typeof flags.description === "string" ? flags.description : null,
            eventTypes,
          },
          BY_CLI,
        ),
      );
      return endpointJson(endpoint, true);
    },
  },
  {
    name: "webhooks list",
    usage: "webhooks list",
    options: {},
    async run(db) {
      return { endpoints: (await listWebhookEndpoints(db)).map((e) => endpointJson(e, false)) };
    },
  },
  {
    name: "webhooks rotate-secret",
    usage: "webhooks rotate-secret --id we_... [--overlap-hours 24]",
    options: { id: { type: "string" }, "overlap-hours": { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "id", this.usage);
      const hours = typeof flags["overlap-hours"] === "string" ? Number(flags["overlap-hours"]) : 24;
      if (!Number.isFinite(hours) || hours < 0) throw new UsageError("--overlap-hours must be a number >= 0");
      return endpointJson(await asUsage(() => rotateWebhookSecret(db, id, Math.round(hours * 3600))), true);
    },
  },
  {
    name: "webhooks remove",
    usage: "webhooks remove --id we_...",
    options: { id: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "id", this.usage);
      if (!(await removeWebhookEndpoint(db, id, BY_CLI))) throw new UsageError(`no webhook endpoint ${id}`);
      return { id, removed: true };
    },
  },
  {
    name: "groups thresholds",
    usage: thresholdsUsage,
    options: { group: { type: "string" }, set: { type: "string" }, clear: { type: "boolean" } },
    async run(db, flags) {
      const group = requireFlag(flags, "group", thresholdsUsage);
      let thresholds;
      if (flags.clear || typeof flags.set === "string") {
        const amounts = flags.clear
          ? []
          : String(flags.set)
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean)
              .map((t) => {
                try {
                  return parseMicros(t);
                } catch (e) {
                  throw new UsageError(`--set: ${(e as Error).message}`);
                }
              });
        thresholds = await asUsage(() => setBalanceThresholds(db, group, amounts, BY_CLI));
      } else {
        thresholds = await listBalanceThresholds(db, group);
      }
      return {
        billingGroupId: group,
        thresholds: thresholds.map((t) => ({ threshold: formatMicros(t.thresholdMicros), crossed: t.crossed })),
      };
    },
  },
];
