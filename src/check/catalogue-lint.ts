/**
 * Every rule over every entry for `status`, from the catalogue and the lint cache: the same final
 * diagnostics as `check`'s (one engine, one policy), without reading an unchanged entry again.
 * - Parse problems and duplicate ids come with the catalogue view.
 * - Sanitization and inline directives run on an entry's text once per file hash.
 * - Anchors are resolved again only when the entry, its last confirmation's fingerprints, or a file
 *   the resolution read has changed (or, for globs, bare names and renames, git's state).
 * - References are checked on the records.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { sortDiagnostics } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { KnowledgeView } from "../indexing/catalogue-view.js";
import { problemsOf, type CatalogueRecord } from "../indexing/catalogue.js";
import type { LedgerSource } from "../ledger/index.js";
import { latestFingerprints } from "../anchors/fingerprint.js";
import type { Access } from "../anchors/resolve.js";
import { COLLECT_FROM_ENTRIES, collectGarbage } from "../store/gc.js";
import { gitStateToken } from "../store/git-dirs.js";
import type { Layout } from "../store/layout.js";
import { entryFileFor, limiter, readEntryFile } from "../store/files.js";
import { findDirectives, type Directive } from "./directives.js";
import { createPolicy, type Linter, type Policy } from "./engine.js";
import type { AnchorResolver } from "./anchors.js";
import { CLEAN, contentKey, lintKey, readLintCache, writeLintCache, type AnchorLint, type LintCache } from "./lint-cache.js";
import { checkReferences } from "./references.js";
import { RULE_MODULES } from "./rules/registry.js";

export type CatalogueLint = {
  /** Final diagnostics (config severities and inline disables applied), sorted. */
  diagnostics: Diagnostic[];
  /** Entries whose content rules or anchors had to be computed (not in the cache). */
  computed: { content: number; anchors: number };
};

export type RecordLintInput = {
  layout: Layout;
  config: CairnConfig;
  /** The ledger, as its events or its folded state (for the anchors' fingerprints). */
  events: LedgerSource;
  today: string;
  /** Resolve anchors (default true; `check --no-anchors` says false). */
  anchors?: boolean;
  /**
   * Resolve again every anchor whose cached result rests on git's state (globs, bare file names, renames):
   * `check` does, so a new untracked file is seen before it is committed. Default false.
   */
  strictAnchors?: boolean;
  /** The lint cache's key (lintKey), when the caller computed it already: one inject gates many candidates. */
  key?: string;
};

/** Rule results of catalogue records, from the lint cache or computed now (and kept for next time). */
export type RecordLinter = {
  policy: Policy;
  /** Raw diagnostics of `records` (parse problems, content rules, anchors) and their inline directives by path. */
  raw(records: readonly CatalogueRecord[]): Promise<{ diagnostics: Diagnostic[]; directives: Map<string, Directive[]> }>;
  /** Final diagnostics of each record's file (policy applied), the gate's input. */
  final(records: readonly CatalogueRecord[]): Promise<Map<string, Diagnostic[]>>;
  /** Persist what was computed: `prune` keeps only the records linted in this run (status sees every entry), else merge. Returns the cache as saved. */
  save(mode: "prune" | "merge"): Promise<LintCache>;
  computed: CatalogueLint["computed"];
};

type Tracker = { files: Set<string>; git: boolean; volatile: boolean };
/**
 * The anchor resolutions' trackers, one store for the process: Node 20 keeps every AsyncLocalStorage that ever ran
 * and visits each one whenever a promise is created, so one per linter made a long-lived process (an MCP server
 * gating each inject) slower with every call and never freed them.
 */
const trackers = new AsyncLocalStorage<Tracker>();

/** `base`: the lint cache as this process last saw it (a long-lived process reads the file once); default: read it. */
export async function recordLinter(input: RecordLintInput, base?: LintCache): Promise<RecordLinter> {
  const { layout, config, today } = input;
  const policy = createPolicy(config);
  const key = input.key ?? lintKey(config, layout.cache);
  const cache = base?.key === key ? base : await readLintCache(layout.cache, key);
  const next: LintCache = { key: cache.key, content: new Map(), anchors: new Map() };
  const computed = { content: 0, anchors: 0 };
  let linter: Linter | undefined;
  const contentLinter = async () => (linter ??= await (await import("./engine.js")).createLinter(layout, config, { anchors: false }));
  // Collections while a large base is linted from a cold cache (see `raw`); the anchors go on after the content rules.
  let collectEvery = Infinity;
  const anchors = anchorLinter(input, cache, next, computed, () => collectEvery);
  const anchorsOn = input.anchors !== false && anchorRulesOn(policy.enabled);

  const raw: RecordLinter["raw"] = async (records) => {
    const diagnostics: Diagnostic[] = [];
    const directives = new Map<string, Directive[]>();
    // Anchor resolutions wait on file reads: they run (one at a time) while the content rules use the CPU.
    // Cached results that still hold come back at once (most of them: no promise per entry).
    const anchored: Array<Diagnostic[] | Promise<Diagnostic[]>> = [];
    // Linting a large knowledge base from a cold cache allocates far more than it keeps (every entry read and parsed):
    // V8 would let the heap grow to ~3× what is live (a first `status` at 100k peaked at 995 MB) before collecting.
    collectEvery = records.length >= COLLECT_FROM_ENTRIES ? COLLECT_EVERY : Infinity;
    for (const record of records) {
      diagnostics.push(...problemsOf(record, today));
      if (record.unparsed) continue;
      // The same bytes under the same name give the same results in any directory or branch: the loaded cache first (it has nearly all of them).
      const contentAt = contentKey(record);
      let content = cache.content.get(contentAt) ?? next.content.get(contentAt);
      if (!content) {
        const text = readText(layout, record);
        if (text === undefined) continue; // gone since the catalogue was refreshed: the next run sees where it went
        const found = await (await contentLinter()).entryDiagnostics({ file: record.path, state: record.state, text, frontmatter: record.frontmatter });
        const directives = findDirectives(text);
        content = found.length || directives.length ? { diagnostics: found, directives } : CLEAN;
        if (++computed.content % collectEvery === 0) collectGarbage();
      }
      next.content.set(contentAt, content);
      // Only files with directives are listed: the policy reads a missing file as one without any.
      if (content.directives.length) directives.set(record.path, content.directives);
      diagnostics.push(...content.diagnostics.map((d) => (d.file === record.path ? d : { ...d, file: record.path })));
      if (anchorsOn) anchored.push(anchors(record));
    }
    for (const found of await settled(anchored)) diagnostics.push(...found);
    return { diagnostics, directives };
  };
  return {
    policy,
    computed,
    raw,
    async final(records) {
      const { diagnostics, directives } = await raw(records);
      const byFile = new Map<string, Diagnostic[]>(records.map((r) => [r.path, []]));
      for (const d of policy.finalize(diagnostics, byFile.keys(), directives)) byFile.get(d.file)?.push(d);
      return byFile;
    },
    async save(mode) {
      const fresh = computed.content + computed.anchors > 0;
      if (mode === "merge") {
        // Merge into the cache in place: it is this process's copy, and what was computed now is valid for it too.
        for (const [k, v] of next.content) cache.content.set(k, v);
        for (const [k, v] of next.anchors) cache.anchors.set(k, v);
        // A partial cache (the inject gate's candidates) is merged into the shards it touches, and comes back partial.
        if (fresh) await writeLintCache(layout.cache, cache).catch(() => undefined);
        return cache;
      }
      // Anchors not resolved in this run (`check --no-anchors`) keep their cached results.
      if (!anchorsOn) for (const [k, v] of cache.anchors) next.anchors.set(k, v);
      // Nothing computed: every result kept was taken from the cache as it was, so only pruning can change it.
      const pruned = next.content.size !== cache.content.size || next.anchors.size !== cache.anchors.size;
      if (fresh || pruned) await writeLintCache(layout.cache, next).catch(() => undefined);
      return next;
    },
  };
}

/** Every rule over every entry of the view (status): the records' results, references, and the files that do not parse. */
export async function lintCatalogue(input: RecordLintInput & { view: KnowledgeView }, base?: LintCache): Promise<CatalogueLint & { cache: LintCache }> {
  const { view } = input;
  const linter = await recordLinter(input, base);
  const { diagnostics, directives } = await linter.raw(view.entries);
  // Files that do not parse, and where entries are (ids, file names): the view's problems beyond the entries' own
  // (most views have none).
  const parsed = new Set(view.diagnostics.length ? view.entries.map((e) => e.path) : []);
  const others = view.diagnostics.filter((d) => !parsed.has(d.file) || d.rule === "id-duplicate" || d.rule === "archive-name-taken");
  const broken = [...new Set(view.diagnostics.map((d) => d.file))].filter((f) => !parsed.has(f));
  const raw = [...others, ...diagnostics, ...checkReferences(view.entries, view.byId)];
  const final = linter.policy.finalize(raw, [...view.entries.map((e) => e.path), ...broken], directives);
  const cache = await linter.save("prune");
  return { diagnostics: sortDiagnostics(final), computed: linter.computed, cache };
}

/** Content results (and, apart, anchor resolutions) computed between two collections when a large knowledge base is linted from a cold cache. */
const COLLECT_EVERY = 4_096;

/** Anchor resolutions in flight at once (each mostly waits on reads of the entry and the files it cites). */
const ANCHOR_RESOLUTIONS = 16;

function anchorRulesOn(enabled: (id: string) => boolean): boolean {
  return RULE_MODULES.find((m) => m.name === "anchors")!.rules.some((r) => enabled(r.id));
}

/** Every value of `list`, its promises awaited (together: one rejection rejects, and none goes unhandled). */
async function settled<T>(list: Array<T | Promise<T>>): Promise<T[]> {
  const out = [...list];
  await Promise.all(list.flatMap((v, i) => (v instanceof Promise ? [v.then((found) => void (out[i] = found))] : [])));
  return out as T[];
}

/**
 * Anchor diagnostics of a record: a cached result while nothing it read has changed (at once, unless it rests on
 * git's state), else resolved again (a few records at a time).
 */
function anchorLinter(input: RecordLintInput, cache: LintCache, next: LintCache, computed: CatalogueLint["computed"], collectEvery: () => number): (record: CatalogueRecord) => Diagnostic[] | Promise<Diagnostic[]> {
  const { layout, config, events } = input;
  let prints: ReturnType<typeof latestFingerprints> | undefined;
  const printsOf = () => (prints ??= latestFingerprints(events));
  const signatures = new Map<string, string>();
  const sig = (rel: string): string => {
    let s = signatures.get(rel);
    if (s === undefined) {
      const info = statSync(path.join(layout.root, rel), { throwIfNoEntry: false });
      s = info ? `${info.mtimeMs}:${info.size}` : "-";
      signatures.set(rel, s);
    }
    return s;
  };
  // Each distinct `path\0signature` is checked once, however many entries depend on it.
  const checked = new Map<string, boolean>();
  const unchanged = (dep: string): boolean => {
    let ok = checked.get(dep);
    if (ok === undefined) {
      const at = dep.indexOf("\0");
      ok = sig(dep.slice(0, at)) === dep.slice(at + 1);
      checked.set(dep, ok);
    }
    return ok;
  };
  let gitToken: Promise<string | undefined> | undefined;
  const git = () => (gitToken ??= gitStateToken(layout.root));

  // One resolver for every stale entry. Resolutions wait mostly on file reads, so several run at once;
  // each reports what it read to its own tracker (async context), which becomes its cache dependencies.
  const onAccess = (access: Access) => {
    const tracker = trackers.getStore();
    if (!tracker) return;
    if (access.kind === "file" || access.kind === "dir") tracker.files.add(access.path);
    else if (access.kind === "external") tracker.volatile = true;
    else tracker.git = true;
  };
  let resolver: Promise<AnchorResolver> | undefined;
  const resolverOnce = () =>
    (resolver ??= import("./anchors.js").then(({ anchorResolverFor }) => anchorResolverFor(layout, { repos: config.repos, onAccess, fingerprints: async () => printsOf() })));
  const slot = limiter(ANCHOR_RESOLUTIONS);

  const reuse = (record: CatalogueRecord, hit: AnchorLint): Diagnostic[] => {
    next.anchors.set(record.path, hit);
    return hit.diagnostics;
  };
  return (record) => {
    const key = anchorKey(record, printsOf().digest(record.id));
    const hit = cache.anchors.get(record.path) ?? next.anchors.get(record.path);
    const held = hit !== undefined && !(input.strictAnchors && hit.git !== undefined) && !hit.volatile && hit.key === key && hit.deps.every(unchanged);
    if (held && hit.git === undefined) return reuse(record, hit);
    return slot(async () => (held && hit.git === (await git()) ? reuse(record, hit) : resolveAnchors(record, key)));
  };

  async function resolveAnchors(record: CatalogueRecord, key: string): Promise<Diagnostic[]> {
    const entry = await fullEntry(layout, record);
    if (!entry) return [];
    const resolve = await resolverOnce();
    const tracker: Tracker = { files: new Set(), git: false, volatile: false };
    const found: Diagnostic[] = [];
    await trackers.run(tracker, async () => {
      for (const anchor of entry.evidence.anchors) found.push(...(await resolve.resolve(anchor, entry.path, entry)));
    });
    const deps = [...tracker.files].map((file) => `${file}\0${sig(file)}`);
    const token = tracker.git ? await git() : undefined;
    const result: AnchorLint = {
      key,
      deps,
      ...(token !== undefined ? { git: token } : {}),
      ...(tracker.volatile || (tracker.git && token === undefined) ? { volatile: true as const } : {}),
      diagnostics: found,
    };
    next.anchors.set(record.path, result);
    // Each resolution reads and parses its entry again: at 100k entries they ran for 30 s after the content rules
    // were done and, uncollected, took the heap from ~300 to 664 MB (RSS 0.9–1.36 GB).
    if (++computed.anchors % collectEvery() === 0) collectGarbage();
    return found;
  }
}

/** What an entry's anchor results depend on besides the files they read: its text, its `lastConfirmed` and its latest fingerprints (their digest). */
function anchorKey(record: CatalogueRecord, printsDigest: string | undefined): string {
  const lastConfirmed = typeof record.frontmatter.lastConfirmed === "string" ? record.frontmatter.lastConfirmed : "";
  return `${record.fileHash}|${lastConfirmed}|${printsDigest ?? ""}`;
}

function readText(layout: Layout, record: CatalogueRecord): string | undefined {
  try {
    return readFileSync(path.join(layout.root, record.path), "utf8");
  } catch {
    return undefined;
  }
}

async function fullEntry(layout: Layout, record: CatalogueRecord): Promise<Entry | undefined> {
  const file = entryFileFor(layout, record.path);
  if (!file) return undefined;
  const { entry } = await readEntryFile(layout, file);
  return entry && entry.id === record.id ? entry : undefined;
}

