import { stat } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../../errors.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { requireKnowledgeDir } from "../require-knowledge.js";
import { EXIT, formatDiagnostics, type DiagnosticFormat, type Io } from "../output.js";

type Opts = { json?: boolean; format: DiagnosticFormat; strict?: boolean; anchors: boolean; duplicates?: boolean };

export async function check(kb: KnowledgeBase, io: Io, paths: string[], opts: Opts): Promise<number> {
  await requireKnowledgeDir(kb);
  for (const p of paths) {
    const rel = path.relative(kb.layout.root, path.resolve(kb.layout.root, p));
    if (rel.startsWith("..") || path.isAbsolute(rel)) throw new CairnError("USAGE", `${p} is outside the project root ${kb.layout.root}; cairn checks entries inside it`);
    const exists = await stat(path.resolve(kb.layout.root, p)).then(() => true, () => false);
    if (!exists) throw new CairnError("USAGE", `no such file or directory: ${p} (paths are relative to ${kb.layout.root})`);
  }
  const report = await kb.check({ paths, anchors: opts.anchors, ...(opts.duplicates ? { duplicates: true } : {}) });
  const format: DiagnosticFormat = opts.json ? "json" : opts.format;
  const text = formatDiagnostics(report.diagnostics, format, report);
  if (text) io.out(text);
  return report.errors > 0 || (opts.strict && report.warnings > 0) ? EXIT.failed : EXIT.ok;
}
