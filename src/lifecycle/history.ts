/** `history ID`: the entry's ledger events and the git log of its file (active and archive paths). */
import path from "node:path";
import type { LedgerEvent } from "../ledger/index.js";
import { relativePath, type Layout } from "../store/layout.js";

export type HistoryItem =
  | { source: "ledger"; time: string; type: LedgerEvent["type"]; run?: string; agent?: string; provenance?: string; detail?: string }
  | { source: "git"; time: string; commit: string; author: string; subject: string };

export type History = { id: string; items: HistoryItem[]; warnings: string[] };

export function ledgerHistory(events: readonly LedgerEvent[], id: string): HistoryItem[] {
  const items: HistoryItem[] = [];
  for (const e of events) {
    if (e.type === "injected") {
      if (e.entries.includes(id)) items.push({ source: "ledger", time: e.time, type: e.type, run: e.run, agent: e.agent });
    } else if (e.entry === id) {
      const item: HistoryItem = { source: "ledger", time: e.time, type: e.type };
      if ("run" in e && e.run) item.run = e.run;
      if (e.type === "confirmed") Object.assign(item, { agent: e.agent, provenance: e.provenance, ...(e.score !== undefined ? { detail: `score ${e.score}` } : {}) });
      if (e.type === "archived" || e.type === "restored") item.detail = e.reason;
      if (e.type === "compounded") item.detail = `agents ${e.agents.join(", ")}`;
      if (e.type === "superseded") item.detail = `by ${e.by}`;
      items.push(item);
    }
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
