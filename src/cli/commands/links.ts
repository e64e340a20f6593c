/** supersede, set-status and history. */
import { ENTRY_STATUSES, type EntryStatus } from "../../entry/types.js";
import { CairnError } from "../../errors.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { reportManual } from "../manual-result.js";
import { EXIT, json, table, terminalText, type Io } from "../output.js";

export async function supersede(kb: KnowledgeBase, io: Io, oldId: string, newId: string, opts: { json?: boolean }): Promise<number> {
  const result = await kb.supersede(oldId, newId);
  return reportManual(io, "supersede", result, (r) => `${oldId} is superseded by ${newId} and archived (${r.path})`, { ...opts, knowledgeDir: kb.config.knowledgeDir });
}

export async function setStatus(kb: KnowledgeBase, io: Io, id: string, status: string, opts: { json?: boolean }): Promise<number> {
  // STATUS is an argument, checked before any entry is looked up: a word that is no status is a usage error (exit 2).
  if (!(ENTRY_STATUSES as readonly string[]).includes(status)) {
    throw new CairnError("USAGE", `unknown status "${status}"; expected one of ${ENTRY_STATUSES.join(", ")}, e.g. cairn set-status ${id} verified`);
  }
  const result = await kb.setStatus(id, status as EntryStatus);
  return reportManual(io, "set-status", result, () => `${id}: status ${status}`, { ...opts, knowledgeDir: kb.config.knowledgeDir });
}

export async function history(kb: KnowledgeBase, io: Io, id: string, opts: { json?: boolean }): Promise<number> {
  const result = await kb.history(id);
  if ("kind" in result) {
    if (opts.json) json(io, result);
    else io.err(terminalText(`cairn history: no entry or ledger events for "${id}".${result.suggestions.length ? ` Did you mean: ${result.suggestions.join(", ")}?` : ""}`));
    return EXIT.failed;
  }
  if (opts.json) return json(io, result), EXIT.ok;
  for (const w of result.warnings) io.err(terminalText(`warning: ${w}`));
  if (!result.items.length) {
    io.out(`${id}: no ledger events and no commits yet`);
    return EXIT.ok;
  }
  io.out(table(["when", "source", "what", "who", "detail"], result.items.map((item) =>
    item.source === "git"
      ? [item.time.replace("T", " ").slice(0, 19), "git", item.commit, item.author, item.subject]
      : [
          item.time.replace("T", " ").slice(0, 19),
          "ledger",
          item.type,
          item.actor ?? "?",
          [item.run && `run ${item.run}${item.origin ? ` (${item.origin})` : ""}`, item.agent && `agent ${item.agent}`, item.provenance, item.detail].filter(Boolean).join(", "),
        ],
  )));
  return EXIT.ok;
}
