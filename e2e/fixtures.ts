import { spawnSync } from "node:child_process";
import {
  test as base,
  expect,
  type APIRequestContext,
  type BrowserContext,
  type Locator,
  type Page,
} from "@playwright/test";
import { readState, type E2EState } from "./state";

export type KeyKind = keyof E2EState["keys"];
export type PersonKind = keyof E2EState["people"];
/** The demo keys that read calls: each has a demo person who sees the same (PERSON_OF_KEY). */
export type ReaderKind = Exclude<KeyKind, "ingest">;

export interface CallJson {
  id: string;
  uuid: string;
  direction: "inbound" | "outbound";
  from: string;
  to: string;
  billingGroupId: string;
  rated: boolean;
  startTime: string;
  hangupCause: string | null;
  price: number;
  currency: string;
  buyCost?: number | null;
  margin?: number | null;
  supplierId?: string | null;
}

/**
 * The demo person who sees what a demo key sees (same billing group, cost or not, all groups or one): the specs
 * sign in as people, as the portal's users do (issue 28: a key-based test hid that no person could read invoices).
 */
export const PERSON_OF_KEY: Record<ReaderKind, PersonKind> = {
  read: "viewer",
  cost: "reseller",
  platform: "platform",
};

interface Fixtures {
  /**
   * Signs the page's browser context in through the sign-in form as the demo person standing for a demo key
   * (PERSON_OF_KEY), or with any key ({ key }: specs about key sign-in, a development switch, PORTAL_KEY_SIGN_IN).
   * E2E_KEY_SIGN_IN=1 signs in with the demo keys themselves.
   */
  signIn: (key: ReaderKind | { key: string }) => Promise<void>;
  /** Signs the page's browser context in as a demo person, or anyone, by email and password. */
  signInAs: (person: PersonKind | { email: string; password: string }) => Promise<void>;
  /**
   * Puts a demo person's session in the page's browser context: signed in through the sign-in page once per worker
   * and person, for specs that look at many pages and sign nobody out (each page its own test, no sign-in each).
   */
  useSessionOf: (person: PersonKind) => Promise<void>;
  /** GET a /v1 path as an API consumer with the given demo key (Bearer), JSON body. */
  api: <T>(kind: KeyKind, path: string) => Promise<T>;
}

type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

export const test = base.extend<Fixtures, { e2e: E2EState; workerSessions: (person: PersonKind) => Promise<Cookies> }>({
  e2e: [async ({}, provide) => provide(readState()), { scope: "worker" }],
  workerSessions: [
    async ({ browser, e2e }, provide) => {
      const sessions = new Map<PersonKind, Promise<Cookies>>();
      await provide((person) => {
        if (!sessions.has(person))
          sessions.set(
            person,
            (async () => {
              const context = await browser.newContext({ baseURL: e2e.baseURL });
              try {
                await signInPerson(await context.newPage(), e2e.people[person]);
                return await context.cookies();
              } finally {
                await context.close();
              }
            })(),
          );
        return sessions.get(person)!;
      });
    },
    { scope: "worker" },
  ],
  useSessionOf: async ({ page, workerSessions }, provide) => {
    await provide(async (person) => page.context().addCookies(await workerSessions(person)));
  },
  baseURL: async ({ e2e }, provide) => provide(e2e.baseURL),
  signIn: async ({ page, e2e }, provide) => {
    await provide(async (key) => {
      if (typeof key === "string" && process.env.E2E_KEY_SIGN_IN !== "1")
        return signInPerson(page, e2e.people[PERSON_OF_KEY[key]]);
      await page.goto("/sign-in");
      await page.getByLabel("API key").fill(typeof key === "string" ? e2e.keys[key].key : key.key);
      await page.getByRole("button", { name: "Sign in with key" }).click();
      await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    });
  },
  signInAs: async ({ page, e2e }, provide) => {
    await provide(async (person) => signInPerson(page, typeof person === "string" ? e2e.people[person] : person));
  },
  api: async ({ playwright, e2e }, provide) => {
    const contexts: APIRequestContext[] = [];
    await provide(async <T>(kind: KeyKind, path: string) => {
      const ctx = await playwright.request.newContext({
        baseURL: e2e.baseURL,
        extraHTTPHeaders: { authorization: `Bearer ${e2e.keys[kind].key}` },
      });
      contexts.push(ctx);
      const response = await ctx.get(path);
      expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
      return (await response.json()) as T;
    });
    for (const c of contexts) await c.dispose();
  },
});

export { expect };

async function signInPerson(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}

/** `npm run admin -- ...` on the suite's data directory: the CLI sends it to the running server. */
export function adminCli(e2e: E2EState, args: string[]): Record<string, unknown> {
  const r = spawnSync("npm", ["run", "-s", "admin", "--", ...args], {
    env: { ...process.env, DATA_DIR: e2e.dataDir, DATABASE_URL: "" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`admin ${args.join(" ")} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** Every call a key can see with these /v1/calls filters, following nextPageUrl. */
export async function allCalls(api: Fixtures["api"], kind: KeyKind, query = ""): Promise<CallJson[]> {
  const out: CallJson[] = [];
  let next: string | null = `/v1/calls?pageSize=1000${query ? `&${query}` : ""}`;
  while (next) {
    const page: { calls: CallJson[]; nextPageUrl: string | null } = await api(kind, next);
    out.push(...page.calls);
    next = page.nextPageUrl ? new URL(page.nextPageUrl).pathname + new URL(page.nextPageUrl).search : null;
  }
  return out;
}

/** Exact micro-units of a displayed amount ("$1,234.50", "-€0.0123", "▼ -$0.0042 (loss)"). */
export function displayedMicros(text: string): bigint {
  const m = /(-)?[^\d-]*([\d,]+)(?:\.(\d{1,6}))?/.exec(text.replace(/\u2212/g, "-"));
  if (!m) throw new Error(`no amount in "${text}"`);
  const value = BigInt(m[2].replace(/,/g, "")) * 1_000_000n + BigInt((m[3] ?? "").padEnd(6, "0"));
  return m[1] ? -value : value;
}

/** Micros rounded half away from zero to `decimals` (how Intl shows an amount in its currency's minor units). */
export function roundedMicros(micros: bigint, decimals: number): bigint {
  const step = 10n ** BigInt(6 - decimals);
  const abs = micros < 0n ? -micros : micros;
  const rounded = ((abs + step / 2n) / step) * step;
  return micros < 0n ? -rounded : rounded;
}

/** Exact micro-units of an API amount (a JSON number with at most 6 decimals). */
export function apiMicros(value: number): bigint {
  return displayedMicros(String(value));
}

/** The rows the call log currently renders, in order: id and each column's text. */
export async function renderedRows(
  page: Page,
): Promise<{ id: string; index: number; cells: Record<string, string> }[]> {
  return page.locator("tr[data-call-id]").evaluateAll((rows) =>
    rows.map((tr) => {
      const cells: Record<string, string> = {};
      for (const td of Array.from(tr.querySelectorAll("td[data-column]"))) {
        cells[(td as HTMLElement).dataset.column!] = (td as HTMLElement).innerText.trim();
      }
      return { id: (tr as HTMLElement).dataset.callId!, index: Number(tr.getAttribute("aria-rowindex")), cells };
    }),
  );
}

/**
 * Opens a call's detail dialog from its row or card. The call log's rows are the server's HTML: a click that lands
 * before hydration has no handler yet and is lost (CI, stop 39: the dialog never opened while the other worker ran
 * axe over /docs), so the click is repeated until the dialog is open, never once it is.
 */
export async function openCallDetail(page: Page, row: Locator): Promise<void> {
  const dialog = page.locator("dialog[open]");
  await expect(async () => {
    if (!(await dialog.isVisible())) await row.click({ timeout: 2_000 });
    await expect(dialog).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `e2e/screenshots/${name}.png`, fullPage: false });
}
