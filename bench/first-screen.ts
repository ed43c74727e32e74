// Case 30 (issue 30 item 11, "speed a person feels"): how long a signed-in person waits, in Chromium, from navigating
// to a portal page until its first figure is on screen: the call log's first call row and the dashboard's balance, at
// desktop and phone sizes. Beside each, the same navigations' time to first byte: the ratio says how much of the wait
// is the page's own (client fetches after hydration) rather than the server's answer.
import { chromium, type Browser, type BrowserContext } from "@playwright/test";
import type { Db } from "@/lib/db/client";
import { addPerson } from "@/lib/people/add-person";
import type { BenchServer } from "./server";
import { median, percentile, round } from "./stats";

const CHROMIUM = process.env.BENCH_CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

/** What is measured on each page: the first element matching `selector` that the browser shows. */
export const SCREENS = [
  { page: "call log", path: "/calls", selector: "[data-call-id]" },
  { page: "dashboard", path: "/", selector: '[data-testid="balance-amount"]' },
] as const;

const SIZES = [
  { size: "desktop", viewport: { width: 1280, height: 800 }, isMobile: false },
  { size: "phone", viewport: { width: 390, height: 844 }, isMobile: true },
] as const;

export interface ScreenPerson {
  email: string;
  password: string;
}

/** A viewer of the listed group (its calls), who signs in with a password as the portal's people do. */
export async function addScreenPerson(db: Db, billingGroupId: string): Promise<ScreenPerson> {
  const person = { email: "first-screen@bench.invalid", password: "bench-first-screen-1" };
  await addPerson(db, { ...person, name: "Bench viewer", role: "viewer", organization: billingGroupId });
  return person;
}

export interface FirstScreenFigure {
  page: string;
  size: string;
  runs: number;
  /** Navigation start to the first row (balance figure) shown. */
  firstP50Ms: number;
  firstP95Ms: number;
  /** Navigation start to the first byte of the page's HTML (Navigation Timing's responseStart). */
  ttfbP50Ms: number;
  /** firstP50Ms / ttfbP50Ms. */
  ratio: number;
}

// Before any of the page's own scripts: notes when each screen's selector first matches a shown element, on the
// page's clock (performance.now() counts from the navigation's start), as the HTML streams in and as React renders.
// Text, not a function: tsx would wrap a function's inner functions in a helper the page does not have.
function observeFirstSeen(selectors: Record<string, string>): string {
  return `(() => {
    const selectors = ${JSON.stringify(selectors)};
    const seen = {};
    window.__firstSeen = seen;
    const check = () => {
      for (const [name, selector] of Object.entries(selectors)) {
        if (name in seen) continue;
        const element = document.querySelector(selector);
        if (element && element.checkVisibility()) seen[name] = performance.now();
      }
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
  })();`;
}

async function signIn(context: BrowserContext, baseUrl: string, person: ScreenPerson): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await page.close();
}

async function measure(
  browser: Browser,
  server: BenchServer,
  person: ScreenPerson,
  runs: number,
  log: (line: string) => void,
): Promise<FirstScreenFigure[]> {
  const figures: FirstScreenFigure[] = [];
  for (const size of SIZES) {
    const context = await browser.newContext({
      viewport: size.viewport,
      isMobile: size.isMobile,
      hasTouch: size.isMobile,
    });
    try {
      await signIn(context, server.baseUrl, person);
      await context.addInitScript(observeFirstSeen(Object.fromEntries(SCREENS.map((s) => [s.page, s.selector]))));
      const page = await context.newPage();
      for (const screen of SCREENS) {
        const first: number[] = [];
        const ttfb: number[] = [];
        // One navigation first, outside the figures: the browser's cache of the page's scripts is warm afterwards,
        // as for a person who has used the portal before.
        for (let run = -1; run < runs; run++) {
          await page.goto(`${server.baseUrl}${screen.path}`, { waitUntil: "commit" });
          await page.waitForFunction(
            (name) => (window as unknown as { __firstSeen?: Record<string, number> }).__firstSeen?.[name] !== undefined,
            screen.page,
            { timeout: 60_000 },
          );
          const timing = await page.evaluate((name) => {
            const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
            return {
              first: (window as unknown as { __firstSeen: Record<string, number> }).__firstSeen[name],
              ttfb: nav.responseStart,
            };
          }, screen.page);
          if (run < 0) continue;
          first.push(timing.first);
          ttfb.push(timing.ttfb);
        }
        const figure: FirstScreenFigure = {
          page: screen.page,
          size: size.size,
          runs,
          firstP50Ms: round(median(first)),
          firstP95Ms: round(percentile(first, 95)),
          ttfbP50Ms: round(median(ttfb)),
          ratio: round(median(first) / median(ttfb), 2),
        };
        log(`  ${screen.page}, ${size.size}: ${JSON.stringify(figure)}`);
        figures.push(figure);
      }
    } finally {
      await context.close();
    }
  }
  return figures;
}

/** Case 30 on a started server: every screen at every size, `runs` navigations each. */
export async function firstScreen(
  server: BenchServer,
  person: ScreenPerson,
  runs: number,
  log: (line: string) => void,
): Promise<FirstScreenFigure[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    return await measure(browser, server, person, runs, log);
  } finally {
    await browser.close();
  }
}
