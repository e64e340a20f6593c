/** The search index kept current by the knowledge base: built now (`index`), or on every change (`watch`). */
import type { IndexOptions, IndexSummary, WatchHandle, WatchOptions } from "../types/indexing.js";
import type { KbContext } from "./context.js";
import { lintFiles } from "./lint-files.js";

/** Build or update the search index in .cairn/ (incremental; `rebuild` starts from scratch). */
export async function buildIndex(ctx: Pick<KbContext, "session" | "progress">, options: IndexOptions = {}): Promise<IndexSummary> {
  if (options.rebuild) await ctx.session.rebuild();
  const opened = await ctx.session.open();
  await opened.loadLexical(); // the lexical index is part of what `index` builds (loaded first, so the refresh builds into it as it parses)
  const warnings = [...opened.takeOpenWarnings(), ...opened.warnings];
  // `build`: the anchored code and lexical documents of changed entries are built now, not by the next search.
  const { index, run } = await ctx.session.refreshNow({ wait: true, build: true, ...ctx.progress(options.onProgress) });
  const report = run.report!;
  return { ...report, warnings: [...new Set([...warnings, ...run.warnings])], entries: index.size, embedder: index.embedder?.id ?? null, saved: run.saved };
}

/** Watch the knowledge dir and keep the index current until `close()` (holds the index writer lock). */
export async function watchKnowledge(ctx: Pick<KbContext, "layout" | "config" | "today" | "session">, options: WatchOptions = {}): Promise<WatchHandle> {
  const { watchIndex } = await import("../indexing/watch.js");
  const index = await ctx.session.open();
  const handle = await watchIndex(index, { lint: (files) => lintFiles(ctx, files), ...options });
  // The watcher refreshes the shared in-memory index, so searches here need no re-check of their own.
  void handle.ready.then(() => ctx.session.setWatched(true), () => undefined);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      ctx.session.setWatched(false);
    },
  };
}
