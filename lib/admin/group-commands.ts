import { CLI_ACTOR } from "@/lib/audit/actor";
import type { ChangeContext } from "@/lib/billing/change-context";
import { createAccount } from "@/lib/billing/create-account";
import {
  getBillingGroup,
  setBillingGroupInvoicing,
  UnknownTimeZoneError,
  type BillingGroup,
} from "@/lib/billing/groups";
import { moveBalance } from "@/lib/billing/move-balance";
import { accountCurrencySchema } from "@/lib/billing/provisioning-schemas";
import { updateAccount } from "@/lib/billing/update-account";
import type { Db } from "@/lib/db/client";
import { ApiError } from "@/lib/errors/api-error";
import { formatTaxRatePercent, parseTaxRatePercent } from "@/lib/invoices/tax";
import { formatMicros, parseMicros } from "@/lib/money/micros";
import { requireFlag, UsageError, type AdminCommand } from "./command";

// The operator's commands on billing groups: thin callers of the same domain functions as the provisioning API
// (lib/billing: createAccount, updateAccount, moveBalance), so every change lands in the ledger and the audit log the
// same way, with the CLI as its actor.

const BY_CLI: ChangeContext = { actor: CLI_ACTOR, address: null };

export function groupJson(g: BillingGroup) {
  return {
    id: g.id,
    name: g.name,
    currency: g.currency,
    balance: formatMicros(g.balanceMicros),
    creditLimit: formatMicros(g.creditLimitMicros),
    accountcode: g.accountcode,
    parentId: g.parentId,
    disabled: g.disabled,
    disabledByOperator: g.disabledByOperator,
    timeZone: g.timeZone,
    billingMode: g.billingMode,
    taxRate: formatTaxRatePercent(g.taxRatePpm),
  };
}

function amount(flags: Record<string, string | boolean | undefined>, name: string, fallback?: string): bigint {
  const raw = flags[name] ?? fallback;
  if (typeof raw !== "string") throw new UsageError(`--${name} is required`);
  try {
    return parseMicros(raw);
  } catch (e) {
    throw new UsageError(`--${name}: ${(e as Error).message}`);
  }
}

const invoicingUsage =
  "groups invoicing --group ID [--time-zone Europe/Berlin] [--mode prepaid|postpaid] [--tax-rate 20 (percent, up to 4 decimals)]";

/** The domain's answers in the CLI's words: an unknown group or a taken accountcode is a usage error. */
async function asCommand<T>(id: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new UsageError(`no billing group ${id}`);
    if (error instanceof ApiError) throw new UsageError(error.detail);
    throw error;
  }
}

async function reloaded(db: Db, id: string): Promise<ReturnType<typeof groupJson>> {
  const group = await getBillingGroup(db, id);
  if (!group) throw new UsageError(`no billing group ${id}`);
  return groupJson(group);
}

const createUsage =
  "groups create --name N (--currency USD | --parent ID [--currency USD]) [--balance 100] [--credit-limit 0] [--accountcode C]";
const updateUsage = "groups update --group ID [--name N] [--credit-limit 50] [--accountcode C | --no-accountcode]";

export const groupCommands: AdminCommand[] = [
  {
    name: "groups create",
    usage: createUsage,
    options: {
      name: { type: "string" },
      currency: { type: "string" },
      balance: { type: "string" },
      "credit-limit": { type: "string" },
      accountcode: { type: "string" },
      parent: { type: "string" },
    },
    async run(db, flags) {
      const name = requireFlag(flags, "name", createUsage);
      const parentId = typeof flags.parent === "string" ? flags.parent : null;
      // A child takes its parent's currency when it names none.
      const currency =
        parentId !== null && typeof flags.currency !== "string"
          ? { success: true as const, data: undefined }
          : accountCurrencySchema.safeParse(requireFlag(flags, "currency", createUsage).toUpperCase());
      if (!currency.success) throw new UsageError(`--currency: ${currency.error.issues[0].message}`);
      const creditLimit = amount(flags, "credit-limit", "0");
      if (creditLimit < 0n) throw new UsageError("--credit-limit must not be negative");
      const options = {
        name,
        currency: currency.data,
        openingBalanceMicros: amount(flags, "balance", "0"),
        creditLimitMicros: creditLimit,
        accountcode: typeof flags.accountcode === "string" ? flags.accountcode : null,
        parentId,
      };
      return groupJson(await asCommand(undefined, () => createAccount(db, options, BY_CLI)));
    },
  },
  {
    name: "groups update",
    usage: updateUsage,
    options: {
      group: { type: "string" },
      name: { type: "string" },
      "credit-limit": { type: "string" },
      accountcode: { type: "string" },
      "no-accountcode": { type: "boolean" },
    },
    async run(db, flags) {
      const id = requireFlag(flags, "group", updateUsage);
      const creditLimit = typeof flags["credit-limit"] === "string" ? amount(flags, "credit-limit") : undefined;
      if (creditLimit !== undefined && creditLimit < 0n) throw new UsageError("--credit-limit must not be negative");
      const changes = {
        name: typeof flags.name === "string" ? flags.name : undefined,
        creditLimitMicros: creditLimit,
        accountcode: flags["no-accountcode"]
          ? null
          : typeof flags.accountcode === "string"
            ? flags.accountcode
            : undefined,
      };
      if (Object.values(changes).every((v) => v === undefined))
        throw new UsageError(`nothing to change\nusage: ${updateUsage}`);
      return groupJson(await asCommand(id, () => updateAccount(db, id, changes, BY_CLI)));
    },
  },
  {
    name: "groups topup",
    usage: "groups topup --group ID --amount 25 [--description TEXT]",
    options: { group: { type: "string" }, amount: { type: "string" }, description: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "group", this.usage);
      const value = amount(flags, "amount");
      if (value <= 0n) throw new UsageError("--amount must be positive");
      const description = typeof flags.description === "string" ? flags.description : "Top-up";
      await asCommand(id, () => moveBalance(db, id, { kind: "topup", amountMicros: value, description }, BY_CLI));
      return reloaded(db, id);
    },
  },
  {
    name: "groups adjust",
    usage: "groups adjust --group ID --amount=-2.50 --description TEXT",
    options: { group: { type: "string" }, amount: { type: "string" }, description: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "group", this.usage);
      const value = amount(flags, "amount");
      if (value === 0n) throw new UsageError("--amount must not be zero");
      const description = requireFlag(flags, "description", this.usage);
      await asCommand(id, () => moveBalance(db, id, { kind: "adjustment", amountMicros: value, description }, BY_CLI));
      return reloaded(db, id);
    },
  },
  {
    name: "groups invoicing",
    usage: invoicingUsage,
    options: {
      group: { type: "string" },
      "time-zone": { type: "string" },
      mode: { type: "string" },
      "tax-rate": { type: "string" },
    },
    async run(db, flags) {
      const id = requireFlag(flags, "group", invoicingUsage);
      const mode = flags.mode;
      if (mode !== undefined && mode !== "prepaid" && mode !== "postpaid")
        throw new UsageError(`--mode must be prepaid or postpaid\nusage: ${invoicingUsage}`);
      let taxRatePpm: number | undefined;
      if (typeof flags["tax-rate"] === "string") {
        try {
          taxRatePpm = parseTaxRatePercent(flags["tax-rate"]);
        } catch (e) {
          throw new UsageError(`--tax-rate: ${(e as Error).message}`);
        }
      }
      const timeZone = typeof flags["time-zone"] === "string" ? flags["time-zone"].trim() : undefined;
      try {
        const group = await setBillingGroupInvoicing(db, id, { timeZone, billingMode: mode, taxRatePpm });
        if (!group) throw new UsageError(`no billing group ${id}`);
        return groupJson(group);
      } catch (e) {
        if (e instanceof UnknownTimeZoneError) throw new UsageError(`--time-zone: ${e.message}`);
        throw e;
      }
    },
  },
  ...(["disable", "enable"] as const).map((verb): AdminCommand => ({
    name: `groups ${verb}`,
    usage: `groups ${verb} --group ID`,
    options: { group: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "group", this.usage);
      return groupJson(await asCommand(id, () => updateAccount(db, id, { disabled: verb === "disable" }, BY_CLI)));
    },
  })),
];
