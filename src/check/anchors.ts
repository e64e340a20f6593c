/**
 * The anchor rule as `check` runs it: resolve each evidence anchor (src/anchors/) and turn what
 * was found into diagnostics. `anchorResolverFor(layout).resolve(anchor, file)` is the adapter the
 * rule registry calls; `locate` gives the structured result (files, current lines, drift).
 */
import path from "node:path";
import { latestFingerprints } from "../anchors/fingerprint.js";
import { createLocator, type LocateContext, type Locator, type LocatorOptions } from "../anchors/resolve.js";
import type { ResolvedAnchor } from "../anchors/types.js";
import { type Diagnostic, diagnostic } from "../entry/diagnostic.js";
import type { Anchor, Entry } from "../entry/types.js";
import { openLedger, snapshotFileIn } from "../ledger/index.js";

export { countLines, DEFAULT_ANCHOR_IGNORE } from "../anchors/repo-files.js";
export { ANCHOR_RULES, type AnchorRule } from "../anchors/types.js";

/** The entry an anchor belongs to (its id and `lastConfirmed` select the ledger fingerprints). */
export type AnchorEntry = Pick<Entry, "id" | "frontmatter">;

export type AnchorResolver = {
  resolve(anchor: Anchor, file: string, entry?: AnchorEntry): Promise<Diagnostic[]>;
  locate(anchor: Anchor, entry?: AnchorEntry): Promise<ResolvedAnchor>;
  locator: Locator;
};

export type AnchorResolverOptions = LocatorOptions;

/**
 * A resolver for a project: glob anchors never match the knowledge directory itself; fingerprints come from its ledger
 * (its folded state, from the snapshot in `cache` when the layout has one, shared with the knowledge base's ledger).
 */
export function anchorResolverFor(layout: { root: string; knowledge: string; ledger?: string; cache?: string }, options: Omit<LocatorOptions, "ignore"> = {}): AnchorResolver {
  const knowledge = path.relative(layout.root, layout.knowledge).split(path.sep).join("/");
  const ledgerDir = layout.ledger ?? path.join(layout.knowledge, ".ledger");
  const ledger = openLedger(ledgerDir, layout.cache === undefined ? {} : { root: layout.root, snapshot: snapshotFileIn(layout.cache) });
  return createAnchorResolver(layout.root, {
    fingerprints: async () => latestFingerprints((await ledger.state()).state),
    ...options,
    ...(knowledge && !knowledge.startsWith("..") ? { ignore: [`${knowledge}/**`] } : {}),
  });
}

/** Creates a resolver rooted at the repository root; caches listings and file contents across calls (one `cairn check` resolves thousands of anchors). */
export function createAnchorResolver(root: string, options: AnchorResolverOptions = {}): AnchorResolver {
  const locator = createLocator(root, options);
  const contextOf = (entry?: AnchorEntry): LocateContext => {
    if (!entry) return {};
    const lastConfirmed = entry.frontmatter.lastConfirmed;
    return { entryId: entry.id, ...(typeof lastConfirmed === "string" ? { lastConfirmed } : {}) };
  };
  return {
    locator,
    locate: (anchor, entry) => locator.locate(anchor, contextOf(entry)),
    async resolve(anchor, file, entry) {
      const resolved = await locator.locate(anchor, contextOf(entry));
      return toDiagnostics(resolved, file);
    },
  };
}

export function toDiagnostics(resolved: ResolvedAnchor, file: string): Diagnostic[] {
  const { anchor } = resolved;
  const at = { line: anchor.line, column: anchor.column };
  const raw = anchor.raw.split("\n")[0];
  return resolved.problems.map((p) => ({ ...diagnostic(file, p.rule, p.severity, `evidence anchor \`${anchor.raw}\`: ${p.message}`, at), short: `${raw} — ${p.short}` }));
}
