/** `cairn show ID`: the entry's file as markdown on stdout and its status on stderr, or everything with --json. */
import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, terminalText, type Io } from "../output.js";

export async function show(kb: KnowledgeBase, io: Io, id: string, opts: { json?: boolean }): Promise<number> {
  const result = await kb.show(id);
  if (opts.json) {
    json(io, result);
    return result.kind === "found" ? EXIT.ok : EXIT.failed;
  }
  if (result.kind === "not-found") {
    const dir = kb.config.knowledgeDir;
    const hint = result.suggestions.length ? ` Did you mean: ${result.suggestions.join(", ")}?` : " Run cairn status --all to list ids, or cairn search WORDS to find one.";
    io.err(`cairn show: no entry with id "${result.id}" in ${dir}/ or ${dir}/archive/.${hint}`);
    return EXIT.failed;
  }
  if (result.kind === "unreadable") {
    // As confirm, retract and set-status say it: the file, the line and the problem, not "no entry".
    io.err(terminalText(`cairn show: ${result.path} holds "${result.id}" but cannot be parsed:`));
    for (const d of result.diagnostics) io.err(terminalText(`${d.file}:${d.line}:${d.column} ${d.severity} ${d.rule} ${d.message}`));
    io.err(terminalText(`Fix it (\`cairn check ${result.path}\` lists every problem) and retry.`));
    return EXIT.failed;
  }
  const { entry } = result;
  const s = entry.status;
  // stdout is the file itself (so `cairn show ID > copy.md` is the entry); what the tool knows about it goes to stderr.
  // A terminal is never told what to do by it: control characters other than line breaks and tabs (escape sequences
  // a hostile change can commit) are spelled out, so only such a file's copy differs.
  io.out(terminalText(entry.text, { lines: true }));
  const decay = entry.state === "active" ? `decay ${s.unconfirmedRuns}/${s.decayAfterRuns}` : `archived ${s.archived ?? "?"}${s.archivedReason ? ` (${s.archivedReason})` : ""}`;
  io.err(
    terminalText(`${entry.path} · ${entry.state} · status ${s.status} · last confirmed ${s.lastConfirmed ?? "?"} (${s.provenance ?? "?"}) · ${decay} · confirmations ${s.confirmations.independent} independent / ${s.confirmations.primed} primed`),
  );
  for (const w of s.warnings) io.err(terminalText(`warning: ${w}`));
  for (const d of entry.diagnostics) io.err(terminalText(`${d.file}:${d.line}:${d.column} ${d.severity} ${d.rule} ${d.message}`));
  return EXIT.ok;
}
