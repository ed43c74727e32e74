import fs from "node:fs";
import { getBillingGroup } from "@/lib/billing/groups";
import { assertTimeZone } from "@/lib/ingest/asterisk";
import { CDR_FILE_FORMATS, importCdrFile, type CdrFileFormat } from "@/lib/ingest/import-file";
import { requireFlag, UsageError, type AdminCommand } from "./command";

const usage =
  "cdrs import --file F [--format native|freeswitch|asterisk] [--batch 1000] [--group ID] [--timezone UTC] [--direction outbound|inbound]";

export const cdrsImportCommands: AdminCommand[] = [
  {
    name: "cdrs import",
    usage,
    options: {
      file: { type: "string" },
      format: { type: "string" },
      batch: { type: "string" },
      group: { type: "string" },
      timezone: { type: "string" },
      direction: { type: "string" },
    },
    async run(db, flags, progress) {
      const file = requireFlag(flags, "file", usage);
      if (!fs.existsSync(file)) throw new UsageError(`--file: ${file} does not exist`);

      let format: CdrFileFormat | undefined;
      if (typeof flags.format === "string") {
        if (!(CDR_FILE_FORMATS as readonly string[]).includes(flags.format)) {
          throw new UsageError(`--format must be one of ${CDR_FILE_FORMATS.join(", ")}\nusage: ${usage}`);
        }
        format = flags.format as CdrFileFormat;
      }

      let batchSize = 1000;
      if (flags.batch !== undefined) {
        batchSize = Number(flags.batch);
        if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 5000)
          throw new UsageError("--batch must be a whole number from 1 to 5000");
      }

      const timeZone = typeof flags.timezone === "string" ? flags.timezone : "UTC";
      try {
        assertTimeZone(timeZone);
      } catch {
        throw new UsageError(`--timezone: unknown time zone "${timeZone}" (an IANA name such as Europe/Berlin)`);
      }

      const direction = flags.direction ?? "outbound";
      if (direction !== "outbound" && direction !== "inbound")
        throw new UsageError("--direction must be outbound or inbound");

      // An explicit --group charges every line, whatever accountcode the PBX wrote (e.g. ast_h323).
      const billingGroupId = typeof flags.group === "string" ? flags.group : undefined;
      if (billingGroupId && !(await getBillingGroup(db, billingGroupId)))
        throw new UsageError(`--group: no billing group ${billingGroupId}`);

      return importCdrFile(db, file, { format, batchSize, timeZone, direction, billingGroupId, progress });
    },
  },
];
