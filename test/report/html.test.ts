/** The report page's HTML: data as escaped JSON, a CSP that names exactly the inline scripts and style, the real bundled assets. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { loadReportAssets, type ReportAssets } from "../../src/report/assets.js";
import { escapeHtml, jsonForScript, renderReportHtml } from "../../src/report/html.js";
import { buildReportModel } from "../../src/report/model.js";
import type { ReportModel } from "../../src/report/types.js";

const PAYLOADS = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "<!-- <script>", "\u2028\u2029", "&amp; ' \" `${x}`"];

function model(project = "demo"): ReportModel {
  const base = buildReportModel({
    status: { entries: [], conflicts: [], warnings: PAYLOADS },
    entries: [],
    diagnostics: [],
    events: [{ v: 1, eventId: "e1", time: "2026-03-01T00:00:00.000Z", type: "retracted", entry: PAYLOADS[1]!, actor: PAYLOADS[0]! }],
    config: DEFAULT_CONFIG,
    project,
    now: new Date("2026-03-02T00:00:00.000Z"),
  });
  return base;
}

const ASSETS: ReportAssets = { chartSource: "window.Chart = function () {};", chartName: "Chart.js 4.0.0 (MIT)", script: "document.title = 'x';", cairnVersion: "0.0.0" };

/** The text of every `<script …>…</script>` element, in order. */
function scripts(html: string): Array<{ open: string; text: string }> {
  return [...html.matchAll(/(<script[^>]*>)([\s\S]*?)<\/script>/g)].map((m) => ({ open: m[1]!, text: m[2]! }));
}

const sha = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

describe("report page HTML", () => {
  it("carries the model as JSON that no entry text can break out of, and that parses back to the same model", () => {
    const data = model();
    const html = renderReportHtml(data, ASSETS);
    const blocks = scripts(html);
    expect(blocks.map((b) => b.open)).toEqual(['<script type="application/json" id="cairn-report-data">', '<script type="application/json" id="cairn-report-meta">', "<script>", "<script>"]);
    expect(JSON.parse(blocks[0]!.text)).toEqual(data);
    expect(JSON.parse(blocks[1]!.text)).toEqual({ chart: "Chart.js 4.0.0 (MIT)", cairn: "0.0.0" });
    expect(blocks[0]!.text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(html.match(/<\/script>/g)).toHaveLength(4);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<!-- <script>");
  });

  it("allows exactly its own inline scripts and style by hash, and nothing to be loaded or sent", () => {
    const html = renderReportHtml(model(), ASSETS);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    const [, , chart, page] = scripts(html);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
    expect(csp?.split("; ")).toEqual(["default-src 'none'", `script-src ${sha(chart!.text)} ${sha(page!.text)}`, `style-src ${sha(style)}`, "base-uri 'none'", "form-action 'none'"]);
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"));
  });

  it("escapes the project name in the title and `</script` inside an inlined library; refuses a library with `<!--`", () => {
    const html = renderReportHtml(model(`a<b>&"c'`), { ...ASSETS, chartSource: 'var s = "</script>"; var r = /<\\/SCRIPT>/;' });
    expect(html).toContain("<title>cairn report — a&lt;b&gt;&amp;&quot;c&#39;</title>");
    expect(scripts(html)[2]!.text).toBe('var s = "<\\/script>"; var r = /<\\/SCRIPT>/;');
    expect(() => renderReportHtml(model(), { ...ASSETS, script: "var s = '<!--';" })).toThrow(/cannot be inlined safely/);
    expect(escapeHtml("<&>")).toBe("&lt;&amp;&gt;");
    expect(JSON.parse(jsonForScript({ s: PAYLOADS.join("") }))).toEqual({ s: PAYLOADS.join("") });
  });

  it("inlines the real Chart.js browser bundle and the compiled page script (nothing from a CDN)", async () => {
    const assets = await loadReportAssets();
    expect(assets.chartName).toMatch(/^Chart\.js 4\.\d+\.\d+ \(MIT\)$/);
    expect(assets.chartSource).toMatch(/^\/\*!\n \* Chart\.js v4/);
    expect(assets.chartSource).not.toContain("sourceMappingURL");
    expect(assets.script).toMatch(/^\(function \(\) \{\n"use strict";/);
    expect(assets.script).toContain("renderPage();");
    const html = renderReportHtml(model(), assets);
    expect(html).not.toMatch(/https?:\/\/[^"'\s]*\.(js|css)\b/);
    expect(html.length).toBeLessThan(400_000);
  });
});
