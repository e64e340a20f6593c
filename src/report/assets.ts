/**
 * What the report page inlines besides its data: Chart.js's browser bundle, read from the installed
 * package at run time (a runtime dependency: nothing is fetched, no CDN), and the page's own script,
 * compiled from src/report/page/ by `npm run build` into dist/report-page/.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CairnError } from "../errors.js";

/** The page's script files, in the order they are joined (each uses what the ones before it declare). */
export const PAGE_SCRIPTS = ["dom", "charts", "entries", "agents", "timeline", "main"] as const;

export type ReportAssets = {
  /** Chart.js's UMD bundle as shipped in its package (it defines the global `Chart`). */
  chartSource: string;
  /** Name, version and license of the chart library, for the page's footer, e.g. `Chart.js 4.6.1 (MIT)`. */
  chartName: string;
  /** The page's own script: src/report/page/*.ts compiled and joined. */
  script: string;
  /** cairn's version, for the footer. */
  cairnVersion: string;
};

const here = path.dirname(fileURLToPath(import.meta.url));

async function readText(file: string, what: string, fix: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    throw new CairnError("IO", `cannot read ${what} (${file}): ${(cause as Error).message}; ${fix}`, { cause });
  }
}

async function chartLibrary(): Promise<{ source: string; name: string }> {
  let main: string;
  try {
    main = createRequire(import.meta.url).resolve("chart.js");
  } catch (cause) {
    throw new CairnError("IO", "cannot find the chart.js package, which `cairn report` bundles into the page; reinstall cairn's dependencies (npm ci)", { cause });
  }
  // chart.js's "exports" hide dist/chart.umd.min.js and package.json from resolve(): read them beside its main file.
  const root = path.resolve(path.dirname(main), "..");
  const fix = "reinstall cairn's dependencies (npm ci)";
  const pkg = JSON.parse(await readText(path.join(root, "package.json"), "chart.js's package.json", fix)) as { version?: string; license?: string };
  const bundle = await readText(path.join(root, "dist", "chart.umd.min.js"), "Chart.js's browser bundle", fix);
  // The source map is not shipped in the page.
  const source = bundle.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  return { source, name: `Chart.js ${pkg.version ?? "?"} (${pkg.license ?? "MIT"})` };
}

/** dist/report-page/page/ from dist/report/ (the built package) or from src/report/ (tests run on the sources after a build). */
async function pageScript(): Promise<string> {
  const candidates = [path.join(here, "..", "report-page", "page"), path.join(here, "..", "..", "dist", "report-page", "page")];
  let dir: string | undefined;
  for (const candidate of candidates) {
    if (await readFile(path.join(candidate, "main.js")).then(() => true, () => false)) {
      dir = candidate;
      break;
    }
  }
  if (!dir) throw new CairnError("IO", `the report page's script is missing (looked for ${candidates.map((c) => path.join(c, "main.js")).join(" and ")}); build cairn first: npm run build`);
  const parts = await Promise.all(PAGE_SCRIPTS.map((name) => readText(path.join(dir, `${name}.js`), `the report page's ${name}.js`, "build cairn first: npm run build")));
  // One scope for the joined files, nothing left on window.
  return `(function () {\n"use strict";\n${parts.join("\n")}\n})();\n`;
}

export async function loadReportAssets(): Promise<ReportAssets> {
  const [chart, script, pkg] = await Promise.all([chartLibrary(), pageScript(), readText(path.join(here, "..", "..", "package.json"), "cairn's package.json", "reinstall cairn")]);
  return { chartSource: chart.source, chartName: chart.name, script, cairnVersion: (JSON.parse(pkg) as { version?: string }).version ?? "?" };
}
