import { allCalls, expect, test } from "./fixtures";

test("scrolling loads every page to the end, in order, without duplicates", async ({ page, signIn, api }) => {
  const [expected] = await Promise.all([allCalls(api, "read"), signIn("read")]);
  expect(expected.length).toBeGreaterThan(1000); // several pages of 500

  // A tall window: each sample sees many rows, so the walk takes a few dozen steps, not hundreds (it ran out of its
  // budget on a busy 2-core machine with a half-window step).
  await page.setViewportSize({ width: 1440, height: 2400 });
  await page.goto("/calls");
  const scroller = page.getByTestId("call-log-scroll");
  await expect(page.locator("tr[data-call-id]").first()).toBeVisible();
  await expect(page.getByTestId("call-count")).toContainText("more available");

  // Row position -> id, as rendered while scrolling a viewport at a time.
  const seen = new Map<number, string>();
  for (let step = 0; step < 2000; step++) {
    const rendered = await page
      .locator("tr[data-call-id]")
      .evaluateAll((rows) =>
        rows.map((r) => [Number(r.getAttribute("aria-rowindex")), (r as HTMLElement).dataset.callId!] as const),
      );
    // Never the same call twice on screen.
    expect(new Set(rendered.map(([, id]) => id)).size).toBe(rendered.length);
    for (const [index, id] of rendered) {
      const before = seen.get(index);
      expect(before === undefined || before === id, `row ${index} changed from ${before} to ${id}`).toBe(true);
      seen.set(index, id);
    }
    const atEnd = await scroller.evaluate((el) => {
      const bottom = el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
      // A viewport less a few rows per step: consecutive samples overlap, so no row can slip between them.
      const row = el.querySelector("tr[data-call-id]")?.getBoundingClientRect().height ?? 40;
      el.scrollTop += Math.max(row, el.clientHeight - 3 * row);
      return bottom && document.querySelector('[data-testid="end-of-log"]') !== null;
    });
    if (atEnd) break;
    // The next page arrives when the viewport nears the end; wait for it rather than sleeping,
    // and for two frames so the virtualiser has rendered the new scroll position.
    await page.waitForFunction(() => !document.querySelector('[data-testid="skeleton-row"]'));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }

  await expect(page.getByTestId("end-of-log")).toBeVisible();
  await expect(page.getByTestId("call-count")).toHaveText(
    `${expected.length.toLocaleString("en-US")} calls loaded · all calls loaded`,
  );
  const ids = [...seen.entries()].sort(([a], [b]) => a - b).map(([, id]) => id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expected.map((c) => c.id));
});
