/**
 * Text that reaches an MCP client's model from outside the reviewed entries — a commit's author and subject, a ledger
 * event's actor, reason, run or agent — is read by that model as part of its prompt. Anyone who can commit or call a
 * writing tool writes it; none of it passes `cairn check`. A string the prompt-injection rule flags is replaced by a
 * note saying it was withheld and why (the CLI's `history` still shows it to a human, escaped).
 */
import { detectInjection } from "../check/sanitize/injection.js";
import { idAsWords } from "../entry/id.js";
import type { SearchResponse } from "../types/search.js";
import type { History, HistoryItem, ShowResult, StatusReport } from "../types/status.js";

/** What replaces a withheld string. */
export const WITHHELD = "(withheld: this text reads as an instruction to an AI agent; `cairn history` shows it to a human)";

/** Fields of a history item that hold text from outside the reviewed entries. */
const OUTSIDE_TEXT = ["run", "agent", "detail", "actor", "origin", "author", "subject"] as const;

/** `text`, or WITHHELD when the prompt-injection rule flags it. */
export function withheldIfInstruction(text: string): string {
  return detectInjection(text).length ? WITHHELD : text;
}

/** `history` with every outside string that reads as an instruction withheld. */
export function promptSafeHistory(history: History): History {
  return { ...history, items: history.items.map(promptSafeItem) };
}

function promptSafeItem(item: HistoryItem): HistoryItem {
  const out: Record<string, unknown> = { ...item };
  for (const key of OUTSIDE_TEXT) {
    const value = out[key];
    if (typeof value === "string") out[key] = withheldIfInstruction(value);
  }
  return out as HistoryItem;
}


/** What `get_entry` returns for an entry withheld from the client's model. */
export type WithheldEntry = { kind: "withheld"; id: string; path: string; note: string; diagnostics: Extract<ShowResult, { kind: "found" }>["entry"]["diagnostics"] };

/**
 * `show` for a model: an entry whose text fails the prompt-injection rule is never injected (the gate), and is not
 * handed to the client's model either — its id, path and problems are, each problem's message without the text it
 * quotes, with a note (`cairn show` and `cairn check` show it to a human). Hidden text needs no such step: the server
 * drops the characters that hide it from every result, and what is left is what the entry visibly says.
 */
export function promptSafeShow(result: ShowResult): ShowResult | WithheldEntry {
  if (result.kind !== "found") return result;
  const { entry } = result;
  if (!entry.diagnostics.some((d) => d.severity === "error" && d.rule === "prompt-injection")) return result;
  return {
    kind: "withheld",
    id: entry.id,
    path: entry.path,
    note: "withheld: this entry's text reads as an instruction to an AI agent (the prompt-injection rule); it is never injected either. `cairn show` and `cairn check` show it to a human; fix it and run `cairn check`.",
    diagnostics: entry.diagnostics.map((d) => (d.rule === "prompt-injection" ? { ...d, message: "text that reads as an instruction to an AI agent (`cairn check` quotes it)" } : d)),
  };
}

/** An entry id (a file name a pull request chooses) that reads as an instruction once its dashes are spaces. */
export function idReadsAsInstruction(id: string): boolean {
  return detectInjection(idAsWords(id)).length > 0 || detectInjection(id).length > 0;
}

const withheldIds = (n: number, command: string) =>
  `withheld ${n} entr${n === 1 ? "y" : "ies"} whose id reads as an instruction to an AI agent (the prompt-injection rule; never injected either): \`cairn ${command}\` lists ${n === 1 ? "it" : "them"} for a human`;

/** `search` for a model: results whose id reads as an instruction are left out, with a warning saying how many. */
export function promptSafeSearch<T extends Pick<SearchResponse, "results" | "warnings">>(response: T): T {
  const kept = response.results.filter((r) => !idReadsAsInstruction(r.id));
  if (kept.length === response.results.length) return response;
  return { ...response, results: kept, warnings: [...response.warnings, withheldIds(response.results.length - kept.length, "search")] };
}

/** `status` for a model: rows whose id reads as an instruction are left out, with a warning saying how many. */
export function promptSafeStatus(report: StatusReport): StatusReport {
  const kept = report.entries.filter((e) => !idReadsAsInstruction(e.id));
  if (kept.length === report.entries.length) return report;
  return { ...report, entries: kept, warnings: [...report.warnings, withheldIds(report.entries.length - kept.length, "status")] };
}
