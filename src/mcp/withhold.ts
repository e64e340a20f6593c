/**
 * Text that reaches an MCP client's model from outside the reviewed entries — a commit's author and subject, a ledger
 * event's actor, reason, run or agent — is read by that model as part of its prompt. Anyone who can commit or call a
 * writing tool writes it; none of it passes `cairn check`. A string the prompt-injection rule flags is replaced by a
 * note saying it was withheld and why (the CLI's `history` still shows it to a human, escaped).
 */
import { detectInjection } from "../check/sanitize/injection.js";
import type { History, HistoryItem } from "../types/status.js";

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
