import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBillingGroup } from "@/lib/billing/groups";
import { describeOnEngines } from "@/lib/testing/describe-on-engines";
import { cdrsImportCommands } from "./cdrs-import-command";
import { parseFlags } from "./command";

const command = cdrsImportCommands[0];
// One Asterisk Master.csv line as a PBX writes it, with the switch's own accountcode.
const LINE =
  '"ast_h323","2001","4930901820","from-internal","""Reception"" <2001>","SIP/2001-0000001a","SIP/trunk_de-0000001b","Dial",' +
  '"SIP/trunk_de/4930901820,30","2025-03-04 09:12:31","2025-03-04 09:12:38","2025-03-04 09:14:02",91,84,"ANSWERED","DOCUMENTATION","1741079521.26",""\n';

describeOnEngines("cdrs import --group", (handle, engine) => {
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-cli-import-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("stores a line carrying accountcode ast_h323 in the --group named, not rejected", async () => {
    const group = await createBillingGroup(handle().db, { name: "PBX customer", currency: "USD" });
    const file = path.join(dir, `Master-${engine}.csv`);
    fs.writeFileSync(file, LINE);
    const flags = parseFlags(command, ["--file", file, "--group", group.id]);
    const summary = await command.run(handle().db, flags, () => undefined);
    expect(summary).toMatchObject({ format: "asterisk", records: 1, inserted: 1, rejected: 0, rejectedLines: [] });
  });
});
