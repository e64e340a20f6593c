import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, formatDiagnostics, json, type Io } from "../output.js";

export async function index(kb: KnowledgeBase, io: Io, opts: { rebuild?: boolean; json?: boolean }): Promise<number> {
  const started = Date.now();
  // A watcher (cairn watch, or the one inside cairn mcp and cairn lsp) holds the index's writer lock for as long as it
  // runs, and keeps the index current itself: waiting 60 s for it and failing helped no one.
  const { liveHolder } = await import("../../store/lock.js");
  const holder = await liveHolder(kb.layout.cache, "index");
  if (holder && /\bcairn\b.*\b(watch|mcp|lsp)\b/.test(holder.command)) {
    const who = `\`${holder.command}\` (pid ${holder.pid}, since ${holder.time})`;
    if (opts.rebuild) {
      io.err(`cairn: ${who} holds the index and keeps it current; stop it to rebuild the index, then run cairn index --rebuild`);
      return EXIT.runtime;
    }
    if (opts.json) return json(io, { keptBy: { command: holder.command, pid: holder.pid, since: holder.time } }), EXIT.ok;
    io.out(`the index is kept current by ${who}: nothing to do`);
    return EXIT.ok;
  }
  // Progress goes to the knowledge base's reporter (cli/progress.ts), as for every command.
  const summary = await kb.index(opts.rebuild ? { rebuild: true } : {});
  if (opts.json) return json(io, summary), EXIT.ok;
  for (const w of summary.warnings) io.err(`warning: ${w}`);
  if (summary.errors.length) io.err(formatDiagnostics(summary.errors, "human", { errors: summary.errors.length, warnings: 0 }) + "\n(files that do not parse keep their last good version in the index)");
  const parts = [
    `${summary.added.length} added`,
    `${summary.updated.length} updated`,
    `${summary.moved.length} moved`,
    `${summary.removed.length} removed`,
    `${summary.unchanged} unchanged`,
  ];
  io.out(`indexed ${summary.entries} entries (${parts.join(", ")}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  io.out(`embedder: ${summary.embedder ?? "none (lexical only)"}; ${summary.embedded} embedded, ${summary.reused} reused from cache${summary.saved ? "" : "; index already up to date"}`);
  return EXIT.ok;
}
