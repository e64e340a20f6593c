/** `check`: every check rule over the entry files, from the catalogue and the lint cache, or a full pass when it must. */
import path from "node:path";
import type { Embedder } from "../indexing/embedder.js";
import type { LoadedKnowledge } from "../store/load.js";
import { describeLedgerWarning } from "../ledger/read.js";
import { CairnError } from "../errors.js";
import { checkUserPaths } from "../store/user-paths.js";
import type { CheckOptions, CheckReport } from "../types/check.js";
import type { KbContext } from "./context.js";

/** Run every check rule (see README "Checks"); `duplicates` adds the near-duplicate rule, which uses the search index. */
export async function checkKnowledge(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "session" | "embedder" | "lint" | "today" | "warn" | "progress">, options: CheckOptions = {}): Promise<CheckReport> {
  const { duplicates, ...rest } = options;
  await checkUserPaths(ctx.layout, rest.paths ?? []);
  const paths = (rest.paths ?? []).map((p) => path.resolve(ctx.layout.root, p));
  await requireEntryLocations(ctx.layout, rest.paths ?? [], paths);
  // Whether .cairn/ was there before this check writes its index into it: only then can git track a file in it.
  const { lstat } = await import("node:fs/promises");
  const cacheThere = await lstat(ctx.layout.cache).then(() => true, () => false);
  const report = await checkEntries(ctx, options, paths);
  // A pull request can add ledger lines: one skipped (malformed, a conflict marker, dated ahead of this clock) is said.
  const { warnings: ledgerWarnings } = await ctx.ledger.state();
  const whole = !paths.length || paths.some((p) => p === ctx.layout.knowledge || ctx.layout.knowledge.startsWith(p + path.sep));
  if (!whole) {
    for (const w of ledgerWarnings) ctx.warn(describeLedgerWarning(w));
    return report;
  }
  // Checking the whole knowledge directory also checks what lies beside the entries, through the same policy: the
  // ledger's lines, committed change logs, and markdown that is never read (knowledge/go/x.md, x.markdown).
  const { misplacedEntries } = await import("../check/misplaced.js");
  const { committedPending, irregularLedgerFiles, trackedCache } = await import("../check/beside.js");
  const { createPolicy } = await import("../check/engine.js");
  const beside = [...ledgerWarnings, ...(await irregularLedgerFiles(ctx.layout)), ...(await committedPending(ctx.layout)), ...(cacheThere ? await trackedCache(ctx.layout) : []), ...(await misplacedEntries(ctx.layout))];
  const more = createPolicy(ctx.config).finalize(beside, [], new Map());
  if (!more.length) return report;
  const { sortDiagnostics } = await import("../entry/diagnostic.js");
  const diagnostics = sortDiagnostics([...report.diagnostics, ...more]);
  return { ...report, diagnostics, errors: diagnostics.filter((d) => d.severity === "error").length, warnings: diagnostics.filter((d) => d.severity === "warning").length };
}

/**
 * A path given to `check` must hold entries: an entry file (directly in the knowledge directory or its archive), one of
 * those directories, or a directory above them. Anything else (`cairn check src/retry.ts`, `knowledge/go/x.md`) was
 * checked as "0 files" and passed.
 */
async function requireEntryLocations(layout: KbContext["layout"], given: readonly string[], paths: readonly string[]): Promise<void> {
  const { stat } = await import("node:fs/promises");
  const { entryFileFor } = await import("../store/files.js");
  for (const [i, abs] of paths.entries()) {
    const isDir = await stat(abs).then((s) => s.isDirectory(), () => false);
    const holds = isDir ? abs === layout.knowledge || abs === layout.archive || layout.knowledge.startsWith(abs + path.sep) : entryFileFor(layout, abs) !== undefined;
    if (!holds) {
      const knowledge = path.relative(layout.root, layout.knowledge) || ".";
      throw new CairnError("USAGE", `${given[i]} holds no entry: entries are the .md files directly in ${knowledge}/ and ${knowledge}/archive/; give one of them, one of those directories, or no path to check them all`);
    }
  }
}

async function checkEntries(ctx: Pick<KbContext, "layout" | "config" | "ledger" | "session" | "embedder" | "lint" | "today" | "warn" | "progress">, options: CheckOptions, paths: string[]): Promise<CheckReport> {
  const { duplicates, ...rest } = options;
  // Files outside the knowledge dir, and the near-duplicate rule (whole entries, the model), take the full pass.
  if (duplicates || paths.some((p) => p !== ctx.layout.knowledge && !p.startsWith(ctx.layout.knowledge + path.sep))) {
    const { runCheck } = await import("../check/run.js");
    return runCheck(ctx.layout, ctx.config, { today: ctx.today(), ...rest, ...(duplicates ? { nearDuplicates: (loaded: LoadedKnowledge) => nearDuplicates(ctx, loaded) } : {}) });
  }
  // Every entry file is read and hashed (a size and mtime can hide an edit); files whose bytes are unchanged keep
  // their parse and rule results, so the result is exactly a full pass's.
  const { index, run } = await ctx.session.refreshNow({ verifyContent: true, embedLimit: 0, ...ctx.progress() });
  for (const warning of [...index.takeOpenWarnings(), ...run.warnings]) ctx.warn(warning);
  const { knowledgeView } = await import("../indexing/catalogue-view.js");
  const view = knowledgeView(index.catalogue, ctx.today());
  const { lintCatalogue } = await import("../check/catalogue-lint.js");
  const { state } = await ctx.ledger.state();
  const lint = await lintCatalogue({ layout: ctx.layout, config: ctx.config, view, events: state, today: ctx.today(), anchors: rest.anchors !== false, strictAnchors: true }, ctx.lint.cache);
  ctx.lint.cache = lint.cache;
  const inPaths = (file: string) => !paths.length || paths.some((p) => { const abs = path.join(ctx.layout.root, file); return abs === p || abs.startsWith(p + path.sep); });
  const diagnostics = lint.diagnostics.filter((d) => inPaths(d.file));
  const files = [...view.entries.map((e) => e.path), ...index.catalogue.broken.map((b) => b.path), ...index.catalogue.records.filter((r) => r.unparsed).map((r) => r.path)].filter(inPaths).length;
  return { diagnostics, errors: diagnostics.filter((d) => d.severity === "error").length, warnings: diagnostics.filter((d) => d.severity === "warning").length, files };
}

async function nearDuplicates(ctx: Pick<KbContext, "layout" | "config" | "session" | "embedder" | "warn">, loaded: LoadedKnowledge) {
  const { findNearDuplicates } = await import("../check/duplicates.js");
  const { index } = await ctx.session.fresh({ search: true });
  // Opt-in and meant for CI: the model compares the lexically pre-selected pairs only (their vectors are cached).
  const embedder = index.embedder ? undefined : await matchingEmbedder(ctx);
  const { cachedEmbed } = await import("../indexing/cached-embed.js");
  const embed = embedder ? await cachedEmbed(ctx.layout.cache, embedder) : undefined;
  try {
    return await findNearDuplicates(index, loaded, ctx.config.duplicateThreshold, embed);
  } catch (error) {
    if (!embed) throw error;
    ctx.warn(`embedding model unavailable for near-duplicates (${(error as Error).message}); compared by word overlap`);
    return findNearDuplicates(index, loaded, ctx.config.duplicateThreshold);
  }
}

/** The configured embedder (or the `embedder` option), usable or null, for comparing a few texts. */
async function matchingEmbedder(ctx: Pick<KbContext, "layout" | "config" | "embedder" | "warn">): Promise<Embedder | null> {
  if (ctx.embedder !== undefined) return ctx.embedder;
  const { createEmbedder, usableEmbedder } = await import("../indexing/embedders/index.js");
  const { embedder, warning } = await usableEmbedder(createEmbedder(ctx.config.embedder, { root: ctx.layout.root }));
  if (warning) ctx.warn(warning);
  return embedder;
}
