/** `history ID`: the entry's ledger events and the git log of its file (active and archive paths). */
import path from "node:path";
import type { LedgerEvent } from "../ledger/index.js";
import { relativePath, type Layout } from "../store/layout.js";
import type { HistoryItem } from "../types/status.js";

export type { History, HistoryItem } from "../types/status.js";

/** What an event adds to its line in `history`, beyond type, run and agent. */
function detailOf(e: LedgerEvent): string | undefined {
  switch (e.type) {
    case "confirmed":
      return e.score !== undefined ? `score ${e.score}` : undefined;
    case "archived":
    case "restored":
      return e.reason;
    case "compounded":
      return `agents ${e.agents.join(", ")}`;
    case "superseded":
      return `by ${e.by}`;
    case "status-set":
      return `${e.from} → ${e.to}`;
    case "hand-confirmed":
      return `lastConfirmed edited to ${e.date}`;
    case "held-out":
      return "withheld from this agent (holdout)";
    default:
      return undefined;
  }
}

export function ledgerHistory(events: readonly LedgerEvent[], id: string): HistoryItem[] {
  const items: HistoryItem[] = [];
  for (const e of events) {
    if (e.type === "injected" ? !e.entries.includes(id) : e.entry !== id) continue;
    const item: HistoryItem = { source: "ledger", time: e.time, type: e.type };
    if ("run" in e && e.run) item.run = e.run;
    if ("agent" in e && e.agent) item.agent = e.agent;
    if (e.type === "confirmed") item.provenance = e.provenance;
    const detail = detailOf(e);
    if (detail !== undefined) item.detail = detail;
    if (e.actor) item.actor = e.actor;
    if ("origin" in e && e.origin) item.origin = e.origin;
    items.push(item);
  }
  return items;
}

export async function gitHistory(layout: Layout, id: string): Promise<{ items: HistoryItem[]; warning?: string }> {
  const { openRepo, fileLog } = await import("../diff/git.js");
  try {
    const repo = await openRepo(layout.root);
    const paths = [path.join(layout.knowledge, `${id}.md`), path.join(layout.archive, `${id}.md`)].map((p) => repo.prefix + relativePath(layout, p));
    const commits = await fileLog(repo, paths);
    return { items: commits.map((c) => ({ source: "git", time: new Date(c.date).toISOString(), commit: c.commit.slice(0, 12), author: c.author, subject: c.subject })) };
  } catch (error) {
    return { items: [], warning: `no git history: ${(error as Error).message}` };
  }
}
