// Measures the call log with many loaded rows (not a test: no timing assertions anywhere).
// Signs in with the platform key, scrolls until every call is loaded, then records frame times
// while scrolling steadily (100 px a frame) and while jumping. Against a running server:
//   DATA_DIR=/tmp/cb-100k npm run admin -- demo --calls 100000 > /tmp/cb-100k.json
//   DATA_DIR=/tmp/cb-100k PORT=3418 npm start &
//   node e2e/measure-call-log-scroll.mjs http://127.0.0.1:3418 /tmp/cb-100k.json
import { chromium } from "@playwright/test";
import fs from "node:fs";
const [base, keysFile] = process.argv.slice(2);
const keys = JSON.parse(fs.readFileSync(keysFile, "utf8")).keys;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--enable-precise-memory-info"],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto(base + "/sign-in");
await page.fill("#key", keys.platform.key);
await page.click("button[type=submit]");
await page.waitForURL((u) => !u.pathname.startsWith("/sign-in"));
await page.goto(base + "/calls");
await page.waitForSelector("tr[data-call-id]");
const started = Date.now();
let loops = 0;
while (!(await page.$('[data-testid="end-of-log"]'))) {
  await page.evaluate(() => {
    const el = document.querySelector('[data-testid="call-log-scroll"]');
    el.scrollTop = el.scrollHeight;
  });
  await page.waitForTimeout(50);
  if (++loops > 20000) throw new Error("did not reach the end");
}
const loadSeconds = (Date.now() - started) / 1000;
const count = await page.textContent('[data-testid="call-count"]');
const rendered = await page.$$eval("tr[data-call-id]", (r) => r.length);
const measure = (mode) =>
  page.evaluate(async (mode) => {
    const el = document.querySelector('[data-testid="call-log-scroll"]');
    el.scrollTop = mode === "steady" ? el.scrollHeight / 2 : 0;
    await new Promise((r) => setTimeout(r, 500));
    const deltas = [];
    let last = performance.now();
    for (let i = 0; i < 300; i++) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
      // steady: a fast wheel scroll (100 px, about 2 rows, per frame); jump: anywhere in the list.
      el.scrollTop = mode === "steady" ? el.scrollTop + 100 : Math.random() * el.scrollHeight;
    }
    deltas.sort((a, b) => a - b);
    const q = (p) => deltas[Math.floor(p * (deltas.length - 1))].toFixed(1);
    return { p50: q(0.5), p95: q(0.95), max: deltas[deltas.length - 1].toFixed(1) };
  }, mode);
const frames = {
  steady: await measure("steady"),
  jump: await measure("jump"),
  heapMB: await page.evaluate(() => (performance.memory?.usedJSHeapSize / 1048576).toFixed(0)),
};
console.log(JSON.stringify({ count, loadSeconds, domRows: rendered, frames }));
await browser.close();
