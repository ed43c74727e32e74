import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * The serious and critical axe findings on the page as it stands: the WCAG 2.1 A/AA and best-practice rules, and two
 * rules outside those tags, on as well: a control's name contains its visible text (label-content-name-mismatch,
 * WCAG 2.5.3, still "experimental" in axe), and targets are 24 px or spaced apart (target-size, WCAG 2.2 2.5.8).
 */
export async function seriousFindings(page: Page, options: { include?: string } = {}) {
  const builder = new AxeBuilder({ page });
  // A part of the page only (a card another test scans as a whole page).
  if (options.include) builder.include(options.include);
  const result = await builder
    .options({ rules: { "label-content-name-mismatch": { enabled: true }, "target-size": { enabled: true } } })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
}

/** No serious or critical finding at the desktop and the phone size (1440x900, 390x844); leaves the page at 1440. */
export async function expectNoSeriousFindingsAtBothSizes(page: Page): Promise<void> {
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    expect(await seriousFindings(page), `at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}
