import type { KnowledgeBase } from "../../knowledge-base.js";
import type { VerifyReport } from "../../verify/index.js";
import { requireKnowledgeDir } from "../../store/require.js";
import { EXIT, formatDiagnostics, json, terminalText, type DiagnosticFormat, type Io } from "../output.js";

type Opts = { json?: boolean; format: DiagnosticFormat; strict?: boolean; dryRun?: boolean };

export async function verify(kb: KnowledgeBase, io: Io, ids: string[], opts: Opts): Promise<number> {
  await requireKnowledgeDir(kb.layout);
  const report = await kb.verify({ ids, ...(opts.dryRun ? { dryRun: true } : {}) });
  if ("kind" in report) {
    io.err(terminalText(`cairn: no entry "${report.id}"${report.suggestions.length ? `. Did you mean: ${report.suggestions.join(", ")}?` : ""}`));
    return EXIT.failed;
  }
  const format: DiagnosticFormat = opts.json ? "json" : opts.format;
  if (format === "json") json(io, report);
  else if (format === "github") {
    const text = formatDiagnostics(asDiagnostics(report), "github", { errors: 0, warnings: report.failed });
    if (text) io.out(text);
  } else io.out(terminalText(human(report), { lines: true })); // steps, patterns and paths come from entries
  return opts.strict && report.failed > 0 ? EXIT.failed : EXIT.ok;
}

function describe(step: VerifyReport["entries"][number]["steps"][number]): string {
  const where = step.paths?.join(", ") ?? "";
  const what = step.pattern !== undefined ? `\`${step.pattern}\` in ${where}` : "";
  if (step.result === "passed") return `${what}: ${step.matches?.map((m) => `${m.file}:${m.line}`).join(", ")}`;
  return [what, step.reason].filter(Boolean).join(" — ");
}

function human(report: VerifyReport): string {
  const lines: string[] = [];
  for (const row of report.entries) {
    lines.push(`${row.path} ${row.result}${row.recorded ? "" : report.dryRun ? " (dry run)" : " (unchanged, not recorded)"}`);
    for (const step of row.steps) lines.push(`  step ${step.step + 1} ${step.result}: ${describe(step)}`);
  }
  lines.push(`verified ${report.entries.length} entries: ${report.passed} passed, ${report.failed} failed, ${report.notMechanical} not mechanical${report.dryRun ? " (dry run: nothing recorded)" : ""}`);
  return lines.join("\n");
}

/** Failed and inconclusive steps as workflow annotations on the entry's Verify section. */
function asDiagnostics(report: VerifyReport) {
  return report.entries.flatMap((row) =>
    row.steps
      .filter((s) => s.result === "failed" || s.result === "inconclusive")
      .map((s) => ({
        file: row.path,
        line: row.line,
        column: 1,
        rule: s.result === "failed" ? "verify-failed" : "verify-inconclusive",
        severity: "warning" as const,
        message: `verify step ${s.step + 1} ${s.result}: ${describe(s)}`,
      })),
  );
}
