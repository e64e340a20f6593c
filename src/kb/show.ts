/** `show` and `history`: one entry by id, as its file and the ledger have it. */
import { projectState } from "../ledger/index.js";
import { lookup } from "../lifecycle/lookup.js";
import { entryFileFor } from "../store/files.js";
import type { History, NotFound, ShowResult } from "../types/status.js";
import type { KbContext } from "./context.js";
import { byFileName } from "./entry-file.js";
import { confirmationInfo } from "./status.js";

/** One entry by id: its text, parsed fields, status row and problems; "not found" carries close ids. */
export async function showEntry(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "today" | "knowledge">, id: string): Promise<ShowResult> {
  const { entryView } = await import("../lifecycle/show.js");
  const { readEntryFile } = await import("../store/files.js");
  // The entry's own file when its id is its name; else the catalogue finds the file. Only that file is read and parsed.
  let read = await byFileName(ctx, id);
  if (!read) {
    const found = lookup((await ctx.knowledge()).byId, id);
    if (found.kind === "not-found") return found;
    const file = entryFileFor(ctx.layout, found.entry.path);
    const again = file ? await readEntryFile(ctx.layout, file, ctx.today()) : undefined;
    if (!again?.entry || again.entry.id !== id) return { kind: "not-found", id, suggestions: [] };
    read = { ...again, entry: again.entry };
  }
  const { state } = await ctx.ledger.state();
  const views = projectState(state, confirmationInfo([read.entry]), { today: ctx.today() });
  return { kind: "found", entry: await entryView(ctx.layout, ctx.config, read.entry, read.diagnostics, views, state) };
}

/** An entry's ledger events and git log, oldest first. */
export async function entryHistory(ctx: Pick<KbContext, "layout" | "ledger" | "knowledge">, id: string): Promise<History | NotFound> {
  const { ledgerHistory, gitHistory } = await import("../lifecycle/history.js");
  const loaded = await ctx.knowledge();
  const { events } = await ctx.ledger.read();
  const fromLedger = ledgerHistory(events, id);
  if (!loaded.byId.has(id) && !fromLedger.length) {
    const found = lookup(loaded.byId, id);
    return { kind: "not-found", id, suggestions: found.kind === "not-found" ? found.suggestions : [] };
  }
  const git = await gitHistory(ctx.layout, id);
  const items = [...fromLedger, ...git.items].sort((a, b) => a.time.localeCompare(b.time));
  return { id, items, warnings: git.warning ? [git.warning] : [] };
}
