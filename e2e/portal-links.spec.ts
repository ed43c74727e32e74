import type { Page, Response } from "@playwright/test";
import { expect, test, type PersonKind } from "./fixtures";
import { readMailbox } from "./mailbox";

// Tests the portal as the people who use it (issue 28: a key-based test hid that no person could read an invoice):
// each demo person signs in through the sign-in page, opens each page of their navigation, and every same-origin
// link and download that page shows them must answer below 400 with their session, as must every request the page
// itself made. One test per person and page, so one slow page cannot eat another's budget. The session is signed in
// through the sign-in page once per worker and person (useSessionOf), not once per page: the walk signs nobody out
// (SKIP), and the sign-in page's own test is people.spec.ts's.

/** The navigation each demo person sees (lib/demo/run-demo.ts's people; components/portal/nav-links.tsx). */
const READER_PAGES = ["/", "/calls", "/rates", "/reports", "/quality", "/limits", "/invoices"];
const NAVIGATION: Record<PersonKind, string[]> = {
  viewer: [...READER_PAGES, "/security"],
  // The money pages: low-balance alerts (issue 30; paying is the dashboard's card).
  billing: [...READER_PAGES, "/alerts", "/security"],
  // The main group's owner: keys, audit, alerts and members too.
  reseller: [...READER_PAGES, "/api-keys", "/audit", "/alerts", "/members", "/security"],
  // The platform's admin: the operator console and the rate decks as well.
  platform: [
    ...READER_PAGES,
    "/api-keys",
    "/audit",
    "/console/accounts",
    "/alerts",
    "/rate-decks",
    "/members",
    "/security",
  ],
};

/**
 * Pages every person also opens though the navigation does not link them, each found by following a link of a
 * navigation page: an invoice's own page, from the list's first invoice (issue 30).
 */
const LINKED: Record<string, { from: string; link: RegExp }> = {
  "/invoices/[id]": { from: "/invoices", link: /^INV-\d{6}$/ },
};

/** Links every such page must show (the walk cannot pass by finding nothing): the downloads of issue 28. */
const MUST_LINK: Record<string, RegExp[]> = {
  "/calls": [/^\/v1\/calls\/export\b/, /^\/v1\/exports\//],
  "/invoices": [/^\/invoices\/inv_[0-9a-z]+$/, /^\/v1\/invoices\/[^/]+\/pdf$/, /^\/v1\/invoices\/[^/]+\/calls\.csv$/],
  "/invoices/[id]": [/^\/invoices$/, /^\/v1\/invoices\/[^/]+\/pdf$/, /^\/v1\/invoices\/[^/]+\/calls\.csv$/],
};

/** Never followed: signing out would end the session the walk uses. */
const SKIP = /^\/session\//;

/** Waits until the page's client data has arrived, so its links are all there. */
async function settled(page: Page): Promise<void> {
  await expect(page.locator("main h1").first()).toBeVisible();
  await expect(page.locator('[data-testid="skeleton-row"], [aria-busy="true"]')).toHaveCount(0);
  // Visible ones only: the call log keeps a hidden "Loading…" status for screen readers.
  await expect(
    page
      .locator("main")
      .getByText(/^Loading\b/)
      .filter({ visible: true }),
  ).toHaveCount(0);
}

/** A link's shape: ids and numbers folded, so a list of 500 calls is walked by two of them, not 500. */
function shape(url: URL): string {
  const path = url.pathname.replace(/[^/]*\d[^/]*/g, ":id");
  const query = [...url.searchParams.keys()].sort().join("&");
  return `${path}?${query}`;
}

/** Same-origin links (hrefs, downloads included) on the page, at most two of each shape. */
async function sameOriginLinks(page: Page, origin: string): Promise<string[]> {
  const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
  const perShape = new Map<string, number>();
  const out = new Set<string>();
  for (const href of hrefs) {
    const url = new URL(href);
    if (url.origin !== origin || SKIP.test(url.pathname)) continue;
    url.hash = "";
    const key = shape(url);
    if ((perShape.get(key) ?? 0) >= 2 || out.has(url.pathname + url.search)) continue;
    perShape.set(key, (perShape.get(key) ?? 0) + 1);
    out.add(url.pathname + url.search);
  }
  return [...out];
}

/** GETs each path with the page's session (page.request shares its cookies): status and where it ended. */
async function follow(page: Page, paths: string[]): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < paths.length; i += 4) {
    await Promise.all(
      paths.slice(i, i + 4).map(async (path) => {
        const response = await page.request.get(path);
        const landed = new URL(response.url()).pathname;
        if (response.status() >= 400 || landed.startsWith("/sign-in"))
          failures.push(`${path}: ${response.status()} at ${landed}`);
        await response.dispose();
      }),
    );
  }
  return failures;
}

for (const person of Object.keys(NAVIGATION) as PersonKind[]) {
  for (const path of [...NAVIGATION[person], ...Object.keys(LINKED)]) {
    test(`links: ${person} on ${path}, every link and download answers below 400`, async ({
      page,
      useSessionOf,
      e2e,
    }) => {
      const origin = new URL(e2e.baseURL).origin;
      // Every request the page makes on its own (its data, its downloads) counts too: a 403 it swallows is a bug.
      const refused: string[] = [];
      const watch = (response: Response) => {
        const url = new URL(response.url());
        if (url.origin === origin && response.status() >= 400 && !SKIP.test(url.pathname))
          refused.push(`${response.request().method()} ${url.pathname}${url.search}: ${response.status()}`);
      };
      await useSessionOf(person);
      page.on("response", watch);

      let at = path;
      if (LINKED[path]) {
        await page.goto(LINKED[path].from);
        const href = await page.getByRole("link", { name: LINKED[path].link }).first().getAttribute("href");
        expect(href, `${LINKED[path].from} links ${path}`).toBeTruthy();
        at = href!;
      }
      const opened = await page.goto(at);
      expect(opened?.status(), at).toBeLessThan(400);
      await settled(page);
      const nav = await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link")
        .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
      expect(nav, `${person}'s navigation (update NAVIGATION with the portal's)`).toEqual(NAVIGATION[person]);

      if (path === "/calls") {
        // The background export's download link appears once its job is done.
        await page.getByRole("button", { name: "Export in background" }).click();
        await expect(page.getByRole("link", { name: /^Download CSV/ })).toBeVisible({ timeout: 60_000 });
      }
      const links = await sameOriginLinks(page, origin);
      for (const pattern of MUST_LINK[path] ?? [])
        expect(
          links.some((l) => pattern.test(l)),
          `${path} links to ${pattern} (links: ${links.join(" ")})`,
        ).toBe(true);

      if (path === "/invoices" || path === "/invoices/[id]") {
        // The browser's own download of the first PDF and calls CSV: a refused one ends "canceled", silently.
        for (const name of [/^Download INV-\d+ as PDF$/, /^Download the calls CSV of INV-\d+$/]) {
          const link = page.getByRole("link", { name }).first();
          const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
          expect(await download.failure(), `${name} download`).toBeNull();
        }
        // The invoice mail's links (owners and billing members get it): the portal's and the PDF's.
        const email = e2e.people[person].email;
        if (path === "/invoices" && e2e.mailDir && (person === "billing" || person === "reseller")) {
          await expect
            .poll(() => readMailbox(e2e.mailDir!).filter((m) => m.to.includes(email) && /\/pdf\b/.test(m.text)).length)
            .toBeGreaterThan(0);
          const mail = readMailbox(e2e.mailDir).find((m) => m.to.includes(email) && /\/pdf\b/.test(m.text))!;
          // The text part of a mail with an attachment is quoted-printable inside the multipart: undo its soft breaks.
          const text = mail.text.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
          const mailed = [...text.matchAll(/https?:\/\/[^\s)]+/g)].map((m) => {
            const url = new URL(m[0]);
            return url.pathname + url.search;
          });
          expect(mailed.some((p) => /^\/v1\/invoices\/[^/]+\/pdf$/.test(p))).toBe(true);
          // The document's own page, and the link mails sent before it existed had (the list redirects it there).
          const own = mailed.find((p) => /^\/invoices\/inv_[0-9a-z]+$/.test(p));
          expect(own, "the mail links the invoice's page").toBeDefined();
          links.push(...mailed, `/invoices?document=${own!.split("/").pop()}`);
        }
      }

      expect(await follow(page, links), `links on ${path} for ${person}`).toEqual([]);
      page.off("response", watch);
      expect(refused, `requests of ${path} for ${person}`).toEqual([]);
    });
  }
}
