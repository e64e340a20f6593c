import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, formatDiagnostics, type DiagnosticFormat, type Io } from "../output.js";

type Opts = { json?: boolean; format: DiagnosticFormat; strict?: boolean; anchors: boolean; duplicates?: boolean };

export async function check(kb: KnowledgeBase, io: Io, paths: string[], opts: Opts): Promise<number> {
  // The knowledge dir and the paths are validated by kb.check, exactly as for the MCP tool.
  const report = await kb.check({ paths, anchors: opts.anchors, ...(opts.duplicates ? { duplicates: true } : {}) });
  const format: DiagnosticFormat = opts.json ? "json" : opts.format;
  const text = formatDiagnostics(report.diagnostics, format, report);
  if (text) io.out(text);
  return report.errors > 0 || (opts.strict && report.warnings > 0) ? EXIT.failed : EXIT.ok;
}
