/** `show` and `history`: one entry by id, as its file and the ledger have it. */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Diagnostic } from "../entry/diagnostic.js";
import { idFromPath } from "../entry/id.js";
import type { Entry } from "../entry/types.js";
import { projectState, type LedgerState } from "../ledger/index.js";
import { lookup } from "../lifecycle/lookup.js";
import { entryFileFor } from "../store/files.js";
import type { History, NotFound, ShowResult, Unreadable } from "../types/status.js";
import type { KbContext } from "./context.js";
import { byFileName } from "./entry-file.js";
import { confirmationInfo } from "./status.js";

/** One entry by id: its text, parsed fields, status row and every rule's problems; "not found" carries close ids; a file that does not parse, its problems. */
export async function showEntry(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "today" | "knowledge" | "lint">, id: string): Promise<ShowResult> {
  const { entryView } = await import("../lifecycle/show.js");
  const { readEntryFile } = await import("../store/files.js");
  // The entry's own file when its id is its name; else the catalogue finds the file. Only that file is read and parsed.
  let read = await byFileName(ctx, id);
  if (!read) {
    const loaded = await ctx.knowledge();
    const found = lookup(loaded.byId, id);
    // A file named `<id>.md` that holds no entry is not "no such entry": say why it cannot be read, as confirm does.
    if (found.kind === "not-found") return unreadable(loaded.diagnostics, id) ?? found;
    const file = entryFileFor(ctx.layout, found.entry.path);
    const again = file ? await readEntryFile(ctx.layout, file, ctx.today()) : undefined;
    if (!again?.entry || again.entry.id !== id) return (again && unreadable(again.diagnostics, id, found.entry.path)) ?? { kind: "not-found", id, suggestions: [] };
    read = { ...again, entry: again.entry };
  }
  const { state } = await ctx.ledger.state();
  const views = projectState(state, confirmationInfo([read.entry]), { today: ctx.today() });
  const diagnostics = read.entry.hash ? await entryDiagnostics(ctx, read.entry, read.diagnostics, state) : read.diagnostics;
  return { kind: "found", entry: await entryView(ctx.layout, ctx.config, read.entry, diagnostics, views, state) };
}

/**
 * When `<id>.md` (or, given `file`, that file) has an error that kept it from being read as an entry: its path and
 * every problem of that file, errors first. Undefined when there is no such problem.
 */
function unreadable(diagnostics: readonly Diagnostic[], id: string, file?: string): Unreadable | undefined {
  const first = diagnostics.find((d) => d.severity === "error" && (file ? d.file === file : idFromPath(d.file) === id));
  if (!first) return undefined;
  const own = diagnostics.filter((d) => d.file === first.file);
  return { kind: "unreadable", id, path: first.file, diagnostics: [...own.filter((d) => d.severity === "error"), ...own.filter((d) => d.severity !== "error")] };
}

/**
 * Every rule's final result for one entry, as `check` and `status` report it (config severities, inline disables):
 * the parser's problems, the content rules (secrets, prompt injection…) and the anchors, from the lint cache where it
 * holds this file's bytes, else computed now and kept. Rules across entries (duplicate ids, references) are `check`'s.
 */
async function entryDiagnostics(ctx: Pick<KbContext, "layout" | "config" | "today" | "lint">, entry: Entry, parsed: Diagnostic[], events: LedgerState): Promise<Diagnostic[]> {
  const { recordOf } = await import("../indexing/catalogue.js");
  const { recordLinter } = await import("../check/catalogue-lint.js");
  const { contentKey, lintKey, readLintLookup } = await import("../check/lint-cache.js");
  const info = await stat(path.join(ctx.layout.root, entry.path));
  const record = recordOf(entry, parsed, info);
  const key = lintKey(ctx.config, ctx.layout.cache);
  const base = ctx.lint.cache ?? (await (ctx.lint.lookup ??= readLintLookup(ctx.layout.cache, key))).subset({ contents: new Set([contentKey(record)]), paths: new Set([record.path]) });
  const linter = await recordLinter({ layout: ctx.layout, config: ctx.config, events, today: ctx.today(), key }, base);
  const final = await linter.final([record]);
  await linter.save("merge");
  return final.get(record.path) ?? parsed;
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
