/**
 * The report page in a real headless Chromium (Debian's package, driven by playwright-core — never a
 * downloaded browser): opened from disk, rendered, clicked, screenshotted to test-output/report.png.
 * Without /usr/bin/chromium the test is skipped and says so, unless CAIRN_REQUIRE_BROWSER=1 (CI), where
 * a missing browser fails with the command that installs it.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairn, REPO } from "../helpers/cli.js";
import { reviewHistory, XSS_TITLE, type History } from "./fixture.js";

// In-page callbacks run in the browser; the Node program has no DOM types, so the few names they use are declared here.
type Canvas = { width: number; height: number; getAttribute(name: string): string | null; getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
declare const document: { querySelector(selector: string): unknown };
declare function getComputedStyle(el: unknown): { backgroundColor: string };

const CHROMIUM = process.env.CAIRN_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
const required = process.env.CAIRN_REQUIRE_BROWSER === "1";
const SCREENSHOT = path.join(REPO, "test-output", "report.png");

if (!available && required) {
  describe("report in headless Chromium", () => {
    it("needs Chromium", () => {
      throw new Error(`CAIRN_REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does), or point CAIRN_CHROMIUM at one`);
    });
  });
}

const skipped = `no browser at ${CHROMIUM} (apt-get install -y chromium, or set CAIRN_CHROMIUM; CI sets CAIRN_REQUIRE_BROWSER=1)`;
if (!available && !required) console.warn(`report browser test SKIPPED: ${skipped}`);
const title = available ? "report in headless Chromium" : `report in headless Chromium — SKIPPED: ${skipped}`;

describe.skipIf(!available)(title, () => {
  let history: History;
  let browser: Browser;
  let page: Page;
  let fileUrl: string;
  const problems: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    history = await reviewHistory();
    // The page is written by the CLI, as a user would: --out relative to the working directory.
    const written = await cairn(["report", "--out", "site"], { cwd: history.dir });
    expect(written.stdout).toMatch(/^wrote site\/index\.html\n/);
    fileUrl = pathToFileURL(path.join(history.dir, "site", "index.html")).href;
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    page.on("console", (m) => {
      // Chromium's hint after repeated getImageData calls comes from this test's own pixel probes (below), not the page.
      if (m.type() === "warning" && m.text().startsWith("Canvas2D: Multiple readback operations using getImageData")) return;
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    // Every request is recorded; anything but the page itself is refused.
    await page.route("**/*", (route) => {
      const url = route.request().url();
      requests.push(url);
      return url === fileUrl ? route.continue() : route.abort();
    });
    await page.goto(fileUrl);
    await page.waitForSelector('html[data-rendered="true"]', { timeout: 15_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await history?.cleanup();
  });

  it("shows the summary and every entry, active and archived, with its decay bar", async () => {
    expect(await page.title()).toMatch(/^cairn report — cairn-diff-/);
    const stat = (name: string) => page.textContent(`[data-stat="${name}"] .value`);
    expect([await stat("active"), await stat("archived"), await stat("near decay"), await stat("verification failed"), await stat("runs")]).toEqual(["6", "4", "1", "1", "10"]);
    const ids = await page.$$eval("tr.entry-row", (rows) => rows.map((r) => r.getAttribute("data-id")));
    expect(ids).toHaveLength(10);
    expect(ids.slice(0, 3)).toEqual(["moved-handler", "query-in-loop", "token-compare"]); // by decay, worst first
    const bar = (id: string) =>
      page.$eval(`tr[data-id="${id}"] .decay`, (el) => {
        const track = el.querySelector(".decay-track")!.clientWidth; // inside its border
        const fill = el.querySelector(".decay-fill")!;
        const colour = getComputedStyle(fill).backgroundColor;
        return { state: el.getAttribute("data-state"), ratio: fill.getBoundingClientRect().width / track, colour, text: el.querySelector(".decay-text")!.textContent };
      });
    const token = await bar("token-compare");
    // Near-decay colouring (the page's --near, --last-chance and --archived colours).
    expect(token).toMatchObject({ state: "near", text: "4/6", colour: "rgb(224, 168, 0)" });
    expect(token.ratio).toBeCloseTo(4 / 6, 1);
    expect(await bar("moved-handler")).toMatchObject({ state: "last-chance", text: "5/6 · held 1/3", colour: "rgb(239, 108, 0)" });
    expect((await bar("pool-size")).ratio).toBe(0);
    expect(await bar("cache-stampede")).toMatchObject({ state: "archived", ratio: expect.closeTo(1, 2), text: "archived", colour: "rgb(179, 188, 199)" });
    const cells = (id: string) => page.$$eval(`tr[data-id="${id}"] td .badge`, (els) => els.map((e) => e.textContent));
    expect(await cells("cache-stampede")).toEqual(["archived", "primed-only", "not mechanical", "ok"]);
    expect(await cells("pool-size")).toEqual(["active", "independent", "failed", "drifted"]);
    expect(await cells("missing-file")).toEqual(["active", "independent", "not mechanical", "unresolved"]);
  });

  it("renders the HTML payload of an entry as text: no element made, no script run, no dialog", async () => {
    expect(await page.textContent('tr[data-id="html-title"] .entry-title')).toBe(XSS_TITLE);
    expect(await page.$$eval("img", (els) => els.length)).toBe(0);
    expect(await page.$$eval("script", (els) => els.length)).toBe(4);
    expect(dialogs).toEqual([]);
  });

  it("draws the sparklines and every chart: all agents, then one per agent, on the runs", async () => {
    expect(await page.$$eval("svg.spark", (els) => els.length)).toBe(10);
    expect(await page.$$eval('tr[data-id="token-compare"] svg.spark rect.spark-independent', (els) => els.length)).toBe(1);
    expect(await page.$$eval('tr[data-id="token-compare"] svg.spark rect.spark-primed', (els) => els.length)).toBe(9);
    const agents = await page.$$eval("article.agent", (els) => els.map((e) => [e.getAttribute("data-agent"), e.querySelector("h3")!.textContent]));
    expect(agents).toEqual([
      ["", "All agents"],
      ["correctness", "correctness · 10 runs"],
      ["performance", "performance · 10 runs"],
      ["security", "security · 10 runs"],
    ]);
    expect(await page.textContent('article[data-agent="performance"] .stats')).toContain("0 independent15 primed");
    const drawn = await page.$$eval("canvas[data-chart]", (canvases) =>
      canvases.map((element) => {
        const c = element as unknown as Canvas;
        const { width, height } = c;
        const pixels = c.getContext("2d").getImageData(0, 0, width, height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) painted += 1;
        return { name: c.getAttribute("data-chart"), wide: width > 300, painted: painted > 2000 };
      }),
    );
    expect(drawn.map((d) => d.name)).toEqual(["runs of all agents", "runs of agent correctness", "runs of agent performance", "runs of agent security"]);
    expect(drawn.every((d) => d.wide && d.painted)).toBe(true);
  });

  it("lists the timeline newest first, filterable by kind", async () => {
    const types = () => page.$$eval("li.event", (els) => els.map((e) => `${e.getAttribute("data-type")} ${e.querySelector(".event-entry")!.textContent}`));
    const all = await types();
    expect(all).toHaveLength(10);
    expect(all[0]).toBe("archived new-advice");
    expect(all.at(-1)).toBe("compounded error-responses-echo-the-raw-sql-statement-back-to-the");
    await page.click('button.chip[data-kind="archived"]');
    expect(await types()).toHaveLength(5);
    await page.click('button.chip[data-kind="archived"]');
    expect(await types()).toHaveLength(10);
  });

  it("filters and sorts the entry table, and opens an entry's details with its own chart", async () => {
    const ids = () => page.$$eval("tr.entry-row", (rows) => rows.map((r) => r.getAttribute("data-id")));
    await page.fill("#entry-filter", "pool");
    expect(await ids()).toEqual(["pool-size"]);
    await page.fill("#entry-filter", "");
    await page.selectOption("#attention-filter", "primed-only");
    expect(await ids()).toEqual(["cache-stampede"]);
    await page.selectOption("#attention-filter", "all");
    await page.selectOption("#state-filter", "archived");
    expect(await ids()).toHaveLength(4);
    await page.selectOption("#state-filter", "all");
    await page.click('th[data-sort="entry"]');
    expect((await ids())[0]).toBe("html-title"); // "<img …" sorts first by title
    await page.click('th[data-sort="decay"]');
    await page.click('tr[data-id="pool-size"]');
    const details = page.locator('tr[data-details="pool-size"]');
    expect(await details.locator(".warnings li").allTextContents()).toEqual([
      "anchor drift: src/db.ts:1-3, openPool() — the anchored lines 1-3 changed since the last confirmation",
      expect.stringMatching(/^verification failed on 2026-03-11: `size: 10` no longer matches/),
    ]);
    await page.waitForFunction(() => {
      const c = document.querySelector('canvas[data-chart="runs of pool-size"]') as Canvas | null;
      return c !== null && c.width > 0 && c.getContext("2d").getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0);
    });
  });

  it("made no request but the page itself, logged no error, and leaves a screenshot", async () => {
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    console.log(`report screenshot: ${SCREENSHOT}`);
    expect(requests).toEqual([fileUrl]);
    expect(problems).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
