import path from "node:path";
import { pathToFileURL } from "node:url";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, type Io } from "../output.js";

type Opts = { out?: string; json?: boolean; runs?: number };

/** `cairn report`: write the static HTML page (or print its data with --json). */
export async function report(kb: KnowledgeBase, io: Io, opts: Opts): Promise<number> {
  const model = await kb.report(opts.runs ? { runs: opts.runs } : {});
  if (opts.json) return json(io, model), EXIT.ok;
  // The chart library and the page are only loaded here, never by check or status.
  const { loadReportAssets, renderReportHtml, writeReport } = await import("../../report/index.js");
  const html = renderReportHtml(model, await loadReportAssets());
  // --out is a path as typed on the command line: relative to the working directory.
  const file = await writeReport(kb.layout, html, opts.out === undefined ? undefined : path.resolve(opts.out), opts.out);
  const s = model.summary;
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  io.err(`${s.active} active and ${s.archived} archived entries, ${count(s.runs, "run")}, ${count(s.agents, "agent")}; works offline (no server, no network)`);
  io.out(`wrote ${path.relative(process.cwd(), file) || file}\nopen ${pathToFileURL(file).href}`);
  return EXIT.ok;
}
