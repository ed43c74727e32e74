import {
  createBillingGroup,
  setBillingGroupInvoicing,
  UnknownTimeZoneError,
  setBillingGroupDisabledByOperator,
  topUpBillingGroup,
  type BillingGroup,
} from "@/lib/billing/groups";
import { currencySchema } from "@/lib/billing/schemas";
import { formatTaxRatePercent, parseTaxRatePercent } from "@/lib/invoices/tax";
import { formatMicros, parseMicros } from "@/lib/money/micros";
import { requireFlag, UsageError, type AdminCommand } from "./command";

export function groupJson(g: BillingGroup) {
  return {
    id: g.id,
    name: g.name,
    currency: g.currency,
    balance: formatMicros(g.balanceMicros),
    creditLimit: formatMicros(g.creditLimitMicros),
    accountcode: g.accountcode,
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
const createUsage = "groups create --name N --currency USD [--balance 100] [--credit-limit 0] [--accountcode C]";

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
    },
    async run(db, flags) {
      const name = requireFlag(flags, "name", createUsage);
      const currency = currencySchema.safeParse(requireFlag(flags, "currency", createUsage).toUpperCase());
      if (!currency.success) throw new UsageError(`--currency: ${currency.error.issues[0].message}`);
      const creditLimit = amount(flags, "credit-limit", "0");
      if (creditLimit < 0n) throw new UsageError("--credit-limit must not be negative");
      const group = await createBillingGroup(db, {
        name,
        currency: currency.data,
        openingBalanceMicros: amount(flags, "balance", "0"),
        creditLimitMicros: creditLimit,
        accountcode: typeof flags.accountcode === "string" ? flags.accountcode : null,
      });
      return groupJson(group);
    },
  },
  {
    name: "groups topup",
    usage: "groups topup --group ID --amount 25",
    options: { group: { type: "string" }, amount: { type: "string" } },
    async run(db, flags) {
      const id = requireFlag(flags, "group", this.usage);
      const value = amount(flags, "amount");
      if (value <= 0n) throw new UsageError("--amount must be positive");
      const group = await topUpBillingGroup(db, id, value);
      if (!group) throw new UsageError(`no billing group ${id}`);
      return groupJson(group);
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
      const group = await setBillingGroupDisabledByOperator(db, id, verb === "disable");
      if (!group) throw new UsageError(`no billing group ${id}`);
      return groupJson(group);
    },
  })),
];
