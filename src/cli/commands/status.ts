import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, table, terminalText, type Io } from "../output.js";

export async function status(kb: KnowledgeBase, io: Io, opts: { all?: boolean; json?: boolean }): Promise<number> {
  const report = await kb.status(opts.all ? { all: true } : {});
  if (opts.json) return json(io, report), EXIT.ok;
  // Warnings quote file names and ledger lines, which a hostile commit chooses: spelled out as `check` prints them.
  for (const w of report.warnings) io.err(terminalText(`warning: ${w}`));
  if (!report.entries.length) {
    io.out(`no ${opts.all ? "" : "active "}entries in ${kb.config.knowledgeDir}/ — create one with cairn new`);
    return EXIT.ok;
  }
  const rows = report.entries.map((e) => [
    e.id,
    e.state,
    e.state === "active" ? `${e.unconfirmedRuns}/${e.decayAfterRuns}${e.heldOutRuns ? ` +${e.heldOutRuns}/${e.holdoutRuns} held` : ""}` : "-",
    e.lastConfirmed ?? "?",
    e.provenance ?? "?",
    e.status,
    `${e.confirmations.independent}/${e.confirmations.primed}`,
    e.evidence,
    e.warnings.join("; "),
  ]);
  io.out(table(["id", "state", "decay", "lastConfirmed", "provenance", "status", "confirm i/p", "evidence", "warnings"], rows));
  const active = report.entries.filter((e) => e.state === "active").length;
  io.out(`\n${active} active${opts.all ? `, ${report.entries.length - active} archived` : ""}; decay = runs that injected the entry since its last independent confirmation / decayAfterRuns (+ runs withheld by holdout)`);
  if (report.conflicts.length) {
    io.out(`\n${report.conflicts.length} conflict(s) to resolve:`);
    for (const c of report.conflicts) io.out(`${terminalText(`  ${c.id}: ${c.message}`)}\n${terminalText(`    what to do: ${c.fix}`)}`);
  }
  return EXIT.ok;
}
