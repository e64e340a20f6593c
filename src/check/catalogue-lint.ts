/**
 * Every rule over every entry for `status`, from the catalogue and the lint cache: the same final
 * diagnostics as `check`'s (one engine, one policy), without reading an unchanged entry again.
 * - Parse problems and duplicate ids come with the catalogue view.
 * - Sanitization and inline directives run on an entry's text once per file hash.
 * - Anchors are resolved again only when the entry, its last confirmation's fingerprints, or a file
 *   the resolution read has changed (or, for globs, bare names and renames, git's state).
 * - References are checked on the records.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { sortDiagnostics } from "../entry/diagnostic.js";
import type { Entry } from "../entry/types.js";
import type { KnowledgeView } from "../indexing/catalogue-view.js";
import type { CatalogueRecord } from "../indexing/catalogue.js";
import type { LedgerEvent } from "../ledger/events.js";
import { latestFingerprints } from "../anchors/fingerprint.js";
import type { Access } from "../anchors/resolve.js";
import { gitStateToken } from "../store/git-dirs.js";
import type { Layout } from "../store/layout.js";
import { entryFileFor, readEntryFile } from "../store/files.js";
import { findDirectives, type Directive } from "./directives.js";
import { createPolicy, type Linter } from "./engine.js";
import { lintKey, readLintCache, writeLintCache, type AnchorLint, type LintCache } from "./lint-cache.js";
import { checkReferences } from "./references.js";
import { RULE_MODULES } from "./rules/registry.js";

export type CatalogueLint = {
  /** Final diagnostics (config severities and inline disables applied), sorted. */
  diagnostics: Diagnostic[];
  /** Entries whose content rules or anchors had to be computed (not in the cache). */
  computed: { content: number; anchors: number };
};

export type CatalogueLintInput = {
  layout: Layout;
  config: CairnConfig;
  view: KnowledgeView;
  events: readonly LedgerEvent[];
  today: string;
};

export async function lintCatalogue(input: CatalogueLintInput): Promise<CatalogueLint> {
  const { layout, config, view, today } = input;
  const policy = createPolicy(config);
  const cache = await readLintCache(layout.cache, lintKey(config));
  const next: LintCache = { key: cache.key, content: {}, anchors: {} };
  const raw: Diagnostic[] = [...view.diagnostics];
  const directives = new Map<string, Directive[]>();
  const computed = { content: 0, anchors: 0 };
  let linter: Linter | undefined;
  const contentLinter = async () => (linter ??= await (await import("./engine.js")).createLinter(layout, config, { anchors: false }));

  for (const record of view.entries) {
    let content = cache.content[record.fileHash] ?? next.content[record.fileHash];
    if (!content) {
      const text = readText(layout, record);
      if (text === undefined) continue; // gone since the catalogue was refreshed: the next run sees where it went
      const found = await (await contentLinter()).entryDiagnostics({ file: record.path, state: record.state, text });
      content = { diagnostics: found, directives: findDirectives(text) };
      computed.content++;
    }
    next.content[record.fileHash] = content;
    directives.set(record.path, content.directives);
    raw.push(...content.diagnostics.map((d) => (d.file === record.path ? d : { ...d, file: record.path })));
  }

  if (anchorRulesOn(policy.enabled)) {
    const anchors = await anchorDiagnostics(input, cache, next, computed);
    raw.push(...anchors);
  }
  raw.push(...checkReferences(view.entries, view.byId));
  const final = policy.finalize(raw, [...view.entries.map((e) => e.path), ...brokenPaths(view)], directives);
  if (changed(cache, next)) await writeLintCache(layout.cache, next).catch(() => undefined);
  return { diagnostics: sortDiagnostics(final), computed };
}

function anchorRulesOn(enabled: (id: string) => boolean): boolean {
  return RULE_MODULES.find((m) => m.name === "anchors")!.rules.some((r) => enabled(r.id));
}

async function anchorDiagnostics(input: CatalogueLintInput, cache: LintCache, next: LintCache, computed: CatalogueLint["computed"]): Promise<Diagnostic[]> {
  const { layout, config, view, events } = input;
  const prints = latestFingerprints(events);
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
  let gitToken: Promise<string | undefined> | undefined;
  const git = () => (gitToken ??= gitStateToken(layout.root));

  // One resolver for every stale entry; each resolution reports what it read to the current tracker.
  let tracker: { files: Set<string>; git: boolean; volatile: boolean } | undefined;
  const onAccess = (access: Access) => {
    if (!tracker) return;
    if (access.kind === "file") tracker.files.add(access.path);
    else if (access.kind === "external") tracker.volatile = true;
    else tracker.git = true;
  };
  let resolver: Awaited<ReturnType<typeof makeResolver>> | undefined;
  const makeResolver = async () => {
    const { anchorResolverFor } = await import("./anchors.js");
    return anchorResolverFor(layout, { repos: config.repos, onAccess, fingerprints: async () => prints });
  };

  const out: Diagnostic[] = [];
  for (const record of view.entries) {
    const key = anchorKey(record, prints.get(record.id));
    const hit = cache.anchors[record.path];
    if (hit && (await fresh(hit, key, sig, git))) {
      next.anchors[record.path] = hit;
      out.push(...hit.diagnostics);
      continue;
    }
    const entry = await fullEntry(layout, record);
    if (!entry) continue;
    resolver ??= await makeResolver();
    tracker = { files: new Set(), git: false, volatile: false };
    const found: Diagnostic[] = [];
    for (const anchor of entry.evidence.anchors) found.push(...(await resolver.resolve(anchor, entry.path, entry)));
    const deps: Record<string, string> = {};
    for (const file of tracker.files) deps[file] = sig(file);
    const token = tracker.git ? await git() : undefined;
    const result: AnchorLint = {
      key,
      deps,
      ...(token !== undefined ? { git: token } : {}),
      ...(tracker.volatile || (tracker.git && token === undefined) ? { volatile: true as const } : {}),
      diagnostics: found,
    };
    tracker = undefined;
    computed.anchors++;
    next.anchors[record.path] = result;
    out.push(...found);
  }
  return out;
}

async function fresh(hit: AnchorLint, key: string, sig: (rel: string) => string, git: () => Promise<string | undefined>): Promise<boolean> {
  if (hit.volatile || hit.key !== key) return false;
  for (const [file, was] of Object.entries(hit.deps)) if (sig(file) !== was) return false;
  return hit.git === undefined || hit.git === (await git());
}

/** What an entry's anchor results depend on besides the files they read: its text, its `lastConfirmed` and its latest fingerprints. */
function anchorKey(record: CatalogueRecord, prints: unknown): string {
  const lastConfirmed = typeof record.frontmatter.lastConfirmed === "string" ? record.frontmatter.lastConfirmed : "";
  return createHash("sha256").update(JSON.stringify([record.fileHash, lastConfirmed, prints ?? null])).digest("hex").slice(0, 24);
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

function brokenPaths(view: KnowledgeView): string[] {
  const parsed = new Set(view.entries.map((e) => e.path));
  return [...new Set(view.diagnostics.map((d) => d.file))].filter((f) => !parsed.has(f));
}

function changed(before: LintCache, after: LintCache): boolean {
  const keys = (o: object) => Object.keys(o).length;
  if (keys(before.content) !== keys(after.content) || keys(before.anchors) !== keys(after.anchors)) return true;
  for (const k of Object.keys(after.content)) if (before.content[k] !== after.content[k]) return true;
  for (const k of Object.keys(after.anchors)) if (before.anchors[k] !== after.anchors[k]) return true;
  return false;
}
