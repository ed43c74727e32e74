import { historySettings } from "@/lib/config/env";
import { openHistoryStore } from "@/lib/history/history-store";
import { moveMonth, moveOldMonths, type MonthOutcome } from "@/lib/history/move-month";
import { retainMonths } from "@/lib/history/retain-months";
import { instantFlag, UsageError, type AdminCommand } from "./command";

const usage =
  "history move [--month YYYY-MM] [--now ISO]             (moves invoiced months older than HISTORY_MOVE_AFTER_MONTHS to ClickHouse: copy, verify, remove; resumable, once per month)";

const retainUsage =
  "history retain [--now ISO]                             (drops from ClickHouse every moved month older than HISTORY_RETENTION_MONTHS; rollups, ledger and invoices stay)";

export const historyCommands: AdminCommand[] = [
  {
    name: "history move",
    usage,
    options: { month: { type: "string" }, now: { type: "string" } },
    async run(db, flags, progress) {
      const settings = historySettings();
      if (!settings)
        throw new UsageError(`HISTORY_CLICKHOUSE_URL is not set: there is no history tier\nusage: ${usage}`);
      const clock = new Date();
      const now = instantFlag(flags, "now", usage) ?? clock;
      // A later instant would make months old enough that are not.
      if (now > clock)
        throw new UsageError(`--now must not be later than now (${clock.toISOString()})\nusage: ${usage}`);
      const month = flags.month;
      if (month !== undefined && (typeof month !== "string" || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)))
        throw new UsageError(`--month must be a UTC month such as 2026-08\nusage: ${usage}`);
      const store = openHistoryStore(settings);
      try {
        const options = { now, moveAfterMonths: settings.moveAfterMonths, progress };
        const months: MonthOutcome[] = month
          ? [await moveMonth(db, store, { ...options, month: new Date(`${month}-01T00:00:00Z`) })]
          : await moveOldMonths(db, store, options);
        return { now: now.toISOString(), months };
      } finally {
        await store.close();
      }
    },
  },
  {
    name: "history retain",
    usage: retainUsage,
    options: { now: { type: "string" } },
    async run(db, flags) {
      const settings = historySettings();
      if (!settings)
        throw new UsageError(`HISTORY_CLICKHOUSE_URL is not set: there is no history tier\nusage: ${retainUsage}`);
      if (settings.retentionMonths === undefined)
        throw new UsageError(`HISTORY_RETENTION_MONTHS is not set: history is kept\nusage: ${retainUsage}`);
      const clock = new Date();
      const now = instantFlag(flags, "now", retainUsage) ?? clock;
      // A later instant would drop months not yet due.
      if (now > clock)
        throw new UsageError(`--now must not be later than now (${clock.toISOString()})\nusage: ${retainUsage}`);
      const store = openHistoryStore(settings);
      try {
        const result = await retainMonths(db, store, { retentionMonths: settings.retentionMonths, now });
        return { now: now.toISOString(), retentionMonths: settings.retentionMonths, ...result };
      } finally {
        await store.close();
      }
    },
  },
];
