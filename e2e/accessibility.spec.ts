import { seriousFindings } from "./axe";
import { expect, openCallDetail, PERSON_OF_KEY, screenshot, test, type ReaderKind } from "./fixtures";
import type { Page } from "@playwright/test";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** Waits until a page's client data has arrived, so axe sees the filled page, not skeletons. */
const READY: Record<string, (page: Page) => Promise<void>> = {
  "/": async (page) => {
    await expect(page.getByTestId("balance-amount")).toBeVisible();
    await expect(page.getByTestId("latest-calls").locator("tbody tr").first()).toBeAttached();
  },
  "/calls": async (page) => {
    await expect(page.locator("[data-call-id]").first()).toBeVisible();
  },
  "/rates": async (page) => {
    await expect(page.getByRole("button", { name: "Look up rate" })).toBeVisible();
  },
  "/reports": async (page) => {
    await expect(page.getByTestId("report-totals").first()).toBeVisible();
  },
  "/invoices": async (page) => {
    await expect(page.getByRole("heading", { name: "Invoices", level: 1 })).toBeVisible();
  },
  // Every account, by destination, one destination opened (prefixes and, for cost sessions, suppliers).
  "/reports?groupBy=destination&from=&until=": async (page) => {
    await page.getByTestId("destination-open").first().click();
    await expect(page.getByTestId("destination-drilldown").getByRole("table").first()).toBeVisible();
  },
  "/rates?destination=442071234567&seconds=60": async (page) => {
    await expect(page.getByTestId("rate-result")).not.toContainText("Enter a destination");
  },
  // The scopes' checkboxes of a new key (target size).
  "/api-keys": async (page) => {
    await expect(page.locator("[data-key-id]").first()).toBeVisible();
  },
  // The invite form and the members' role pickers.
  "/members": async (page) => {
    await expect(page.locator("tr[data-member-email]").first()).toBeVisible();
  },
  // The API reference (outside the portal's chrome).
  "/docs": async (page) => {
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  },
  // A URL no route matches, and a portal page's 404 (inside the portal's layout): one main landmark each, not two.
  "/no-such-page": async (page) => {
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  },
  "/calls/call_none": async (page) => {
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  },
};

/** The pages above that answer 404. */
const NOT_FOUND = new Set(["/no-such-page", "/calls/call_none"]);

// One test per page, viewport and person: a slow page has its own budget, and each waits for its data, not a clock.
// The session is signed in through the sign-in page once per worker (useSessionOf): these tests sign nobody out.
for (const kind of ["cost", "platform"] as ReaderKind[]) {
  const person = PERSON_OF_KEY[kind];
  for (const vp of VIEWPORTS) {
    test.describe(`axe, ${kind} session (${person}), ${vp.name}`, () => {
      test.beforeEach(async ({ page, useSessionOf }) => {
        await page.setViewportSize({ width: vp.width, height: vp.height });
        await useSessionOf(person);
      });

      for (const path of Object.keys(READY)) {
        test(`no serious or critical findings on ${path}`, async ({ page }) => {
          // The API reference is one long page: axe takes a while over it.
          if (path === "/docs") test.slow();
          await page.goto(path);
          await READY[path](page);
          if (NOT_FOUND.has(path)) await expect(page.locator("main")).toHaveCount(1);
          expect(await seriousFindings(page), `${path} at ${vp.name}`).toEqual([]);
        });
      }

      test("no serious or critical findings on the call detail dialog over the call log", async ({ page }) => {
        await page.goto("/calls");
        await READY["/calls"](page);
        await openCallDetail(page, page.locator("[data-call-id]").first());
        await expect(page.getByTestId("call-detail")).toContainText("UUID");
        expect(await seriousFindings(page), `call detail dialog at ${vp.name}`).toEqual([]);
      });

      test("no serious or critical findings on a call's own page", async ({ page }) => {
        const listed = (await (await page.request.get("/v1/calls?pageSize=1")).json()) as { calls: { id: string }[] };
        const id = listed.calls[0].id;
        await page.goto(`/calls/${id}`);
        await expect(page.getByTestId("call-detail")).toContainText("UUID");
        expect(await seriousFindings(page), `/calls/${id} at ${vp.name}`).toEqual([]);
        if (kind === "cost") await screenshot(page, `call-page-${vp.name}`);
      });

      test("no serious or critical findings on an invoice's own page", async ({ page }) => {
        // The newest invoice the session sees (a note's page is the same component without balance and notes).
        const listed = (await (await page.request.get("/v1/invoices?pageSize=50")).json()) as {
          invoices: { id: string; kind: string }[];
        };
        const invoice = listed.invoices.find((d) => d.kind === "invoice");
        expect(invoice, "the demo has an invoice").toBeDefined();
        await page.goto(`/invoices/${invoice!.id}`);
        await expect(page.getByTestId("invoice-totals")).toContainText("Total");
        expect(await seriousFindings(page), `/invoices/${invoice!.id} at ${vp.name}`).toEqual([]);
        if (kind === "cost") await screenshot(page, `invoice-page-${vp.name}`);
      });
    });
  }
}

// The operator console, as the demo's platform admin (the console is for the platform's owners and admins).
for (const vp of VIEWPORTS) {
  test.describe(`axe, operator console, platform admin, ${vp.name}`, () => {
    test.beforeEach(async ({ page, useSessionOf }) => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      await useSessionOf("platform");
    });

    test("no serious or critical findings on /console/accounts", async ({ page }) => {
      await page.goto("/console/accounts");
      await expect(page.locator("[data-account-id]").first()).toBeVisible();
      expect(await seriousFindings(page), `/console/accounts at ${vp.name}`).toEqual([]);
    });

    test("no serious or critical findings on an account's console page", async ({ page }) => {
      await page.goto("/console/accounts");
      const id = await page.locator("[data-account-id]").first().getAttribute("data-account-id");
      await page.goto(`/console/accounts/${id}`);
      await expect(page.getByTestId("api-keys").locator("tbody tr").first()).toBeVisible();
      expect(await seriousFindings(page), `/console/accounts/${id} at ${vp.name}`).toEqual([]);
    });

    test("no serious or critical findings on /console/accounts/new", async ({ page }) => {
      await page.goto("/console/accounts/new");
      await expect(page.getByRole("button", { name: "Create account" })).toBeVisible();
      expect(await seriousFindings(page), `/console/accounts/new at ${vp.name}`).toEqual([]);
      if (vp.name === "phone") await screenshot(page, "console-new-account-phone");
    });
  });
}

for (const vp of VIEWPORTS) {
  test.describe(`axe, a viewer's Security page and the sign-in's second step, ${vp.name}`, () => {
    test.beforeEach(async ({ page, useSessionOf }) => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      await useSessionOf("viewer");
    });

    test("no serious or critical findings on /security", async ({ page }) => {
      await page.goto("/security");
      await expect(page.getByRole("region", { name: "Passkeys" })).toBeVisible();
      expect(await seriousFindings(page), `/security at ${vp.name}`).toEqual([]);
      await screenshot(page, `security-${vp.name}`);
    });

    test("no serious or critical findings on /sign-in/second-factor", async ({ page }) => {
      await page.goto("/sign-in/second-factor");
      await expect(page.getByLabel("Authentication code")).toBeVisible();
      expect(await seriousFindings(page), `/sign-in/second-factor at ${vp.name}`).toEqual([]);
    });
  });
}

// The Alerts page, as a customer's owner sees it (the demo keys do not hold alerts:write).
for (const vp of VIEWPORTS) {
  test(`axe: no serious or critical findings on the Alerts page, ${vp.name}`, async ({ page, useSessionOf }) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    await useSessionOf("reseller");
    await page.goto("/alerts");
    await expect(page.getByLabel(/Thresholds.*comma-separated/)).toBeEnabled();
    await expect(page.getByText(/Loading endpoints/)).toHaveCount(0);
    expect(await seriousFindings(page), `/alerts at ${vp.name}`).toEqual([]);
    await screenshot(page, `alerts-${vp.name}`);
  });
}

// The console's rate deck pages: platform staff only (a person with rates:write), each filled before axe looks.
for (const vp of VIEWPORTS) {
  test.describe(`axe, rate deck pages, platform staff, ${vp.name}`, () => {
    test.beforeEach(async ({ page, useSessionOf }) => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      await useSessionOf("platform");
    });

    for (const path of ["/rate-decks", "/rate-decks/suppliers"]) {
      test(`no serious or critical findings on ${path}`, async ({ page }) => {
        await page.goto(path);
        await expect(page.getByTestId("deck-history").locator("tbody tr").first()).not.toContainText("Loading");
        expect(await seriousFindings(page), `${path} at ${vp.name}`).toEqual([]);
      });
    }
    for (const path of ["/rate-decks/upload", "/rate-decks/suppliers/upload"]) {
      test(`no serious or critical findings on ${path}`, async ({ page }) => {
        await page.goto(path);
        // No owner is preselected: the page waits for a choice and says so.
        await expect(page.getByTestId("deck-needs-owner")).toBeVisible();
        expect(await seriousFindings(page), `${path} at ${vp.name}`).toEqual([]);
      });
    }

    test("no serious or critical findings with a supplier deck's diff on screen", async ({ page }) => {
      // The supplier's deck in force, one rate changed.
      const suppliers = (await (await page.request.get("/v1/suppliers")).json()) as { suppliers: { id: string }[] };
      const supplier = suppliers.suppliers[0].id;
      const current = await (await page.request.get(`/v1/suppliers/${supplier}/rate-decks/current`)).text();
      const [header, first, ...rest] = current.trimEnd().split(/\r?\n/);
      const cells = first.split(",");
      cells[1] = "9.5";
      await page.goto(`/rate-decks/suppliers/upload?supplier=${supplier}`);
      await page.getByLabel(/CSV file/).setInputFiles({
        name: "buy.csv",
        mimeType: "text/csv",
        buffer: Buffer.from([header, cells.join(","), ...rest].join("\n")),
      });
      await page.getByRole("button", { name: "Preview changes" }).click();
      await expect(page.getByTestId("deck-preview")).toBeVisible();
      expect(await seriousFindings(page), `supplier deck diff at ${vp.name}`).toEqual([]);
      await screenshot(page, `supplier-deck-diff-${vp.name}`);
    });
  });
}
