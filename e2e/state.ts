import fs from "node:fs";

export interface DemoKey {
  id: string;
  key: string;
  scopes: string[];
  billingGroupId: string | null;
}

export interface DemoPerson {
  email: string;
  password: string;
  role: string;
  organization: string;
}

/** What global-setup hands to the workers. */
export interface E2EState {
  baseURL: string;
  keys: { read: DemoKey; cost: DemoKey; platform: DemoKey; ingest: DemoKey };
  /** The demo's people (lib/demo/run-demo.ts). */
  people: { viewer: DemoPerson; billing: DemoPerson; reseller: DemoPerson; platform: DemoPerson };
  /** Where the suite's SMTP server (e2e/mailbox.ts) writes every message the server sends. Absent when reusing a server. */
  mailDir?: string;
  /** The server's data directory: the admin CLI reaches the running server through it. Absent when reusing a server. */
  dataDir?: string;
}

export function readState(): E2EState {
  const file = process.env.CALLBOOK_E2E_STATE;
  if (!file)
    throw new Error("CALLBOOK_E2E_STATE is not set: run the suite through playwright.config.ts (its globalSetup)");
  return JSON.parse(fs.readFileSync(file, "utf8")) as E2EState;
}
