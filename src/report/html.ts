/**
 * Render the report's model as one static HTML file that opens from disk: no server, no network.
 * The data travels as JSON in a `<script type="application/json">` (every `<` escaped, so no entry
 * text can close the element) and is rendered by the page's script with text nodes only; scripts
 * and styles are inline, allowed by a Content-Security-Policy that names their hashes and nothing
 * else (no `connect-src`, no `img-src`: the page cannot load or send anything).
 */
import { createHash } from "node:crypto";
import type { ReportAssets } from "./assets.js";
import { REPORT_CSS } from "./style.js";
import type { ReportModel } from "./types.js";

/** JSON safe inside a `<script>` element: `<`, `>`, `&` and the JavaScript line separators are escaped as \u sequences. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/**
 * Script text that cannot end its element early. `</script` only occurs in strings, regular
 * expressions or comments of valid JavaScript, where `<\/script` means the same. `<!--` would change
 * how the HTML parser reads the rest of the element; a library that contains it is refused.
 */
function inlineScript(source: string, what: string): string {
  if (source.includes("<!--")) throw new Error(`${what} contains "<!--", which cannot be inlined safely in a <script> element`);
  return source.replace(/<\/(script)/gi, "<\\/$1");
}

function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

export function renderReportHtml(model: ReportModel, assets: ReportAssets): string {
  const chart = inlineScript(assets.chartSource, "the chart library");
  const page = inlineScript(assets.script, "the page script");
  const style = REPORT_CSS;
  const csp = ["default-src 'none'", `script-src ${cspHash(chart)} ${cspHash(page)}`, `style-src ${cspHash(style)}`, "base-uri 'none'", "form-action 'none'"].join("; ");
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>cairn report — ${escapeHtml(model.project)}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
    '<main id="report"><noscript><p>This report draws its tables and charts with the JavaScript inside this file (nothing is loaded from the network): enable JavaScript to see it. The data is in the page source as JSON.</p></noscript></main>',
    `<script type="application/json" id="cairn-report-data">${jsonForScript(model)}</script>`,
    `<script type="application/json" id="cairn-report-meta">${jsonForScript({ chart: assets.chartName, cairn: assets.cairnVersion })}</script>`,
    `<script>${chart}</script>`,
    `<script>${page}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
