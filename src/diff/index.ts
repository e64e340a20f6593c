/** `cairn diff`: what changed in the knowledge base between two git revisions, for pull-request review. */
import type { CairnConfig } from "../config.js";
import { todayUtc } from "../entry/file-facts.js";
import { CairnError } from "../errors.js";
import { type LedgerEvent, projectLedger, readLedger } from "../ledger/index.js";
import { nearDecayAt } from "../lifecycle/decay.js";
import type { Layout } from "../store/layout.js";
import { compareConfig, type ConfigComparison } from "./config-compare.js";
import { configAtCommit, configInWorkTree } from "./config-file.js";
import { listTree, mergeBase, openRepo, resolveCommit, trackedFiles, type GitRepo } from "./git.js";
import { entryFactsAt, entryFactsInWorkTree } from "./entry-facts.js";
import { type AddedEvent, countLedgerChanges, events } from "./ledger.js";
import { ledgerEffects, namedIds } from "./ledger-effects.js";
import { groupByKind, planDiff } from "./plan.js";
import type { DiffEntry, KnowledgeDiff } from "./types.js";
import { layoutChange } from "./layout-change.js";
import { toLayoutPath, type RealDirs } from "./real-dirs.js";
import { dirsAt, dirsInWorkTree, pinnedKnowledgeDir } from "./side-dirs.js";
import { ledgerAt, readSides } from "./versions.js";

export type { BodySection, ChangeKind, ConfigDiff, ConfigKeyChange, ConfigSide, DiffEntry, KnowledgeDiff, LedgerCounters, LedgerEffect, MovedDir } from "./types.js";
export { renderDiffMarkdown, type RenderOptions } from "./markdown.js";

/** True when the diff carries an error of its own (a rewritten or removed ledger event, a gating rule switched off): `cairn diff` exits 1, the Action fails. */
export function diffFails(diff: Pick<KnowledgeDiff, "problems">): boolean {
  return diff.problems.some((p) => p.severity === "error");
}

/** Label of HEAD when comparing against the working tree. */
export const WORKING_TREE = "working tree";

export type DiffOptions = {
  /** Today's date (UTC, YYYY-MM-DD) for the future-date rule in HEAD's errors. Default: the current UTC date. */
  today?: string;
};

/**
 * Compare the knowledge base at commit `base` with commit `head`, or — when `head` is omitted —
 * with the working tree including uncommitted and untracked (not ignored) files, like
 * `git diff BASE` plus new files. `base` may also be `A..B` (same as `A B`) or `A...B`
 * (from the merge base of A and B to B, what a pull request shows). Entries are keyed by id,
 * so a move between the knowledge dir and its archive is one entry. Unknown revisions and
 * directories outside git are USAGE errors.
 */
export async function diffKnowledge(layout: Layout, config: CairnConfig, base: string, head?: string, options: DiffOptions = {}): Promise<KnowledgeDiff> {
  const range = splitRange(base, head);
  const repo = await openRepo(layout.root);
  const resolved = await resolveRange(repo, range);
  // Each revision is read where its own cairn would read it: its config and its links, not the working tree's.
  const pinned = await pinnedKnowledgeDir(layout);
  const headLabel = range.head ?? WORKING_TREE;
  const [baseDirs, headDirs] = await Promise.all([
    dirsAt(repo, resolved.base, range.base, pinned),
    resolved.head === undefined ? dirsInWorkTree(repo, layout) : dirsAt(repo, resolved.head, headLabel, pinned),
  ]);
  const real = headDirs.real;
  const layoutChanged = layoutChange({ dirs: baseDirs, label: range.base }, { dirs: headDirs, label: headLabel }, repo.prefix);
  const sides = await readSides(repo, { before: baseDirs.real, after: real, base: resolved.base, head: resolved.head, today: options.today ?? todayUtc() });
  const plan = planDiff({ before: sides.before, after: sides.after, renames: sides.renames });
  const ledger = countLedgerChanges(sides.ledgerBefore, sides.ledgerAfter);
  const warnings = [...layoutChanged.warnings, ...plan.warnings];
  // knowledge/.pending/ holds a running change's log and locks, local and gitignored: one in git came in a commit.
  // cairn never applies it (src/lifecycle/change.ts), and the pull request must not bring it.
  const pendingTop = `${real.knowledge.top ? `${real.knowledge.top}/` : ""}.pending/`;
  const committed = resolved.head === undefined ? await trackedFiles(repo, pendingTop) : (await listTree(repo, resolved.head, pendingTop)).map((f) => f.path);
  for (const file of committed) {
    warnings.push(`${toLayoutPath(real, file) ?? file.slice(repo.prefix.length)} is committed: files in ${real.knowledge.shown || "."}/.pending/ are a running change's log or lock, local to one machine — cairn never applies a committed one; remove it from the change`);
  }
  const settings = await configChange(layout, repo, resolved);
  if (settings.warning) warnings.push(settings.warning);
  let headEvents: Promise<LedgerEvent[]> | undefined;
  const readHeadEvents = () =>
    (headEvents ??= resolved.head === undefined ? readLedger(layout.ledger, { root: layout.root }).then((r) => r.events) : ledgerAt(repo, resolved.head, real).then(events));
  const entries = await withDecay(plan.entries, config, readHeadEvents);
  const effects = await effectsOf(layout, repo, { before: baseDirs.real, after: real }, resolved, ledger.events, config, options.today ?? todayUtc(), readHeadEvents);
  const groups = groupByKind(entries);
  return {
    base: range.base,
    head: headLabel,
    baseCommit: resolved.base,
    ...(resolved.head !== undefined ? { headCommit: resolved.head } : {}),
    added: groups.added,
    edited: groups.edited,
    confirmed: groups.confirmed,
    archived: groups.archived,
    restored: groups.restored,
    retracted: groups.retracted,
    renamed: groups.renamed,
    ledger: ledger.added,
    ...(layoutChanged.moved.length ? { moved: layoutChanged.moved } : {}),
    ledgerEffects: effects.effects,
    warnings,
    ...(settings.diff ? { config: settings.diff } : {}),
    problems: [...layoutChanged.problems, ...ledger.problems, ...settings.problems, ...effects.problems],
  };
}

/**
 * What a change to cairn.config.json does, or undefined when the loader gets the same settings. The configuration
 * decides where the entries are (`knowledgeDir`), which rules gate a prompt (`rules`), what the sanitizer allows and
 * how many entries an agent gets: a pull request that changes only it showed 'No knowledge changes.' Each side is read
 * as `loadConfig` reads it (a link followed inside that revision, a BOM dropped), so a link to another file, and every
 * later edit of that file, show here too.
 */
async function configChange(layout: Layout, repo: GitRepo, resolved: { base: string; head?: string }): Promise<ConfigComparison> {
  const [before, after] = await Promise.all([configAtCommit(repo, resolved.base), resolved.head !== undefined ? configAtCommit(repo, resolved.head) : configInWorkTree(layout)]);
  return compareConfig(before, after);
}

/**
 * What the added ledger events do to the entries they name: BASE's whole ledger and HEAD's projected for those
 * entries (with each side's `lastConfirmed`). Read only when events were added.
 */
async function effectsOf(
  layout: Layout,
  repo: GitRepo,
  real: { before: RealDirs; after: RealDirs },
  resolved: { base: string; head?: string },
  added: readonly AddedEvent[],
  config: CairnConfig,
  today: string,
  readHeadEvents: () => Promise<LedgerEvent[]>,
): Promise<ReturnType<typeof ledgerEffects>> {
  if (added.length === 0) return { effects: [], problems: [] };
  const ids = new Set(added.flatMap((a) => namedIds(a.event)));
  const [before, after, entriesBefore, entriesAfter] = await Promise.all([
    ledgerAt(repo, resolved.base, real.before).then(events),
    readHeadEvents(),
    entryFactsAt(repo, resolved.base, real.before, ids),
    resolved.head === undefined ? entryFactsInWorkTree(layout, ids) : entryFactsAt(repo, resolved.head, real.after, ids),
  ]);
  return ledgerEffects({ before, after, added, entriesBefore, entriesAfter, config, today });
}

type Range = { base: string; head?: string; mergeBase: boolean };

/** Accept `BASE`, `BASE HEAD`, `A..B` and `A...B` (an empty side means HEAD, as in git). */
export function splitRange(base: string, head: string | undefined): Range {
  const three = base.indexOf("...");
  const two = base.indexOf("..");
  if (two === -1) return head === undefined ? { base, mergeBase: false } : { base, head, mergeBase: false };
  if (head !== undefined) {
    throw new CairnError("USAGE", `got the range '${base}' and a second revision '${head}'; give either BASE HEAD or BASE..HEAD, e.g. cairn diff origin/main HEAD`);
  }
  const width = three === two ? 3 : 2;
  return { base: base.slice(0, two) || "HEAD", head: base.slice(two + width) || "HEAD", mergeBase: width === 3 };
}

async function resolveRange(repo: GitRepo, range: Range): Promise<{ base: string; head?: string }> {
  const base = await resolveCommit(repo, range.base);
  if (range.head === undefined) return { base };
  const head = await resolveCommit(repo, range.head);
  return { base: range.mergeBase ? await mergeBase(repo, base, head) : base, head };
}

/** Add HEAD's decay counter to entries active at HEAD; the ledger is read only when there are some. */
async function withDecay(entries: DiffEntry[], config: Pick<CairnConfig, "decayAfterRuns" | "nearDecayRatio">, readEvents: () => Promise<Parameters<typeof projectLedger>[0]>): Promise<DiffEntry[]> {
  const active = entries.filter((e) => e.state === "active" && e.kinds[0] !== "retracted" && e.unparsable !== "head" && e.unparsable !== "both");
  if (active.length === 0) return entries;
  // An id renamed by the change (a file renamed without an `id:` key) leaves its ledger history under the old id.
  const renamed = active.filter((e) => e.previousId !== undefined && e.previousId !== e.id);
  const views = projectLedger(await readEvents(), [
    ...active.map((e) => ({ id: e.id, ...(e.lastConfirmed !== undefined ? { lastConfirmed: e.lastConfirmed } : {}) })),
    ...renamed.map((e) => ({ id: e.previousId!, ...(e.lastConfirmed !== undefined ? { lastConfirmed: e.lastConfirmed } : {}) })),
  ]);
  const wanted = new Set(active);
  const { decayAfterRuns } = config;
  const near = nearDecayAt(config);
  return entries.map((e) => {
    const view = wanted.has(e) ? views.get(e.id) : undefined;
    if (!view) return e;
    const left = e.previousId !== undefined && e.previousId !== e.id ? views.get(e.previousId) : undefined;
    return {
      ...e,
      decay: { unconfirmedRuns: view.unconfirmedRuns, decayAfterRuns, nearDecay: view.unconfirmedRuns >= near },
      ...(left && left.unconfirmedRuns > 0 ? { historyLeft: { unconfirmedRuns: left.unconfirmedRuns } } : {}),
    };
  });
}
