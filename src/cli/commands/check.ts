import path from "node:path";
import { CairnError } from "../../errors.js";
import type { FixReport } from "../../anchors/fix-entries.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, formatDiagnostics, type DiagnosticFormat, type Io } from "../output.js";

type Opts = { json?: boolean; format: DiagnosticFormat; strict?: boolean; anchors: boolean; duplicates?: boolean; fix?: boolean; dryRun?: boolean };

export async function check(kb: KnowledgeBase, io: Io, paths: string[], opts: Opts): Promise<number> {
  // The knowledge dir and the paths are validated by kb.check, exactly as for the MCP tool.
  if (opts.dryRun && !opts.fix) throw new CairnError("USAGE", "--dry-run previews the edits of --fix; use `cairn check --fix --dry-run`");
  const format: DiagnosticFormat = opts.json ? "json" : opts.format;
  // A path typed on the command line means what it means to the shell: relative to the working directory, as for
  // `record --findings` and `report --out` (`cairn check e1.md` inside knowledge/). The library takes paths relative
  // to the root or absolute, so they go to it absolute; it still refuses those outside the project.
  const cwd = io.cwd ?? process.cwd();
  const resolved = paths.map((p) => (p.includes("\0") ? p : path.resolve(cwd, p)));
  const fixed = opts.fix && opts.anchors ? await kb.fixAnchors({ paths: resolved, dryRun: opts.dryRun ?? false }) : undefined;
  if (fixed && format !== "json") io.err(formatFixes(fixed));
  const report = await kb.check({ paths: resolved, anchors: opts.anchors, ...(opts.duplicates ? { duplicates: true } : {}) });
  if (fixed && format === "json") {
    io.out(JSON.stringify({ ...JSON.parse(formatDiagnostics(report.diagnostics, "json", report)), fixes: fixed }, null, 2));
    return report.errors > 0 || (opts.strict && report.warnings > 0) ? EXIT.failed : EXIT.ok;
  }
  const text = formatDiagnostics(report.diagnostics, format, report);
  if (text) io.out(text);
  return report.errors > 0 || (opts.strict && report.warnings > 0) ? EXIT.failed : EXIT.ok;
}

/** What --fix changed (or, with --dry-run, would change), one line per edit, like a compact diff. */
function formatFixes(report: FixReport): string {
  const lines = report.edits.map((e) => `${e.file}:${e.line}:${e.column} ${e.rule} ${e.from} → ${e.to}`);
  for (const r of report.refused) lines.push(`${r.file}: not fixed: ${r.reason}`);
  const verb = report.dryRun ? "would fix" : "fixed";
  lines.push(`${verb} ${report.edits.length} anchor${report.edits.length === 1 ? "" : "s"} in ${report.files.length} file${report.files.length === 1 ? "" : "s"}${report.dryRun ? " (dry run: nothing written)" : ""}`);
  return lines.join("\n");
}
