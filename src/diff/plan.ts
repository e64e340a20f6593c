/** Classify changed entry files into a knowledge diff, keyed by entry id. Pure: no I/O. */
import path from "node:path";
import { idFromPath } from "../entry/id.js";
import type { Entry, EntryState } from "../entry/types.js";
import { CHANGE_KINDS, type BodySection, type ChangeKind, type DiffEntry, type KnowledgeDiff } from "./types.js";

/** One side (BASE or HEAD) of one changed entry file. */
export type EntryVersion = {
  /** Path relative to the project root, forward slashes. */
  path: string;
  state: EntryState;
  /** sha256 of the bytes (equal hashes mean identical content). */
  hash: string;
  /** The parsed entry; absent when the file could not be read as an entry at all. */
  entry?: Entry;
  /** Error diagnostics as `line N: message`. */
  errors: string[];
};

export type PlanInput = {
  /** Versions at BASE of the entry files that changed. */
  before: readonly EntryVersion[];
  /** Versions at HEAD of the entry files that changed. */
  after: readonly EntryVersion[];
  /** Root-relative path pairs git detected as renames (BASE path → HEAD path); pairs entries whose id changed. */
  renames?: ReadonlyArray<{ from: string; to: string }>;
};

export type DiffPlan = { entries: DiffEntry[]; warnings: string[] };

/** Frontmatter keys whose changes are reported as confirmation, archive or restore rather than metadata. */
const LIFECYCLE_KEYS = new Set(["lastConfirmed", "provenance", "archived", "archivedReason"]);
/** Every body section an agent's prompt shows (Fix included: an edit of it changes what agents are told). */
const SECTIONS: readonly BodySection[] = ["finding", "evidence", "verify", "fix"];

function keyOf(version: EntryVersion): string {
  return version.entry?.id ?? idFromPath(version.path);
}

/** Pair BASE and HEAD versions by id (then by git rename, then by identical body) and describe each change. */
export function planDiff(input: PlanInput): DiffPlan {
  const warnings: string[] = [];
  const before = byKey(input.before);
  const after = byKey(input.after, (id, kept, dropped) => {
    warnings.push(`id "${id}" is used by both ${kept} and ${dropped} at HEAD; ids must be unique across the knowledge dir and its archive (cairn check reports it)`);
  });
  const pairs: Array<{ b?: EntryVersion; a?: EntryVersion }> = [];
  for (const [key, b] of before) {
    const a = after.get(key);
    if (a === undefined) continue;
    pairs.push({ b, a });
    before.delete(key);
    after.delete(key);
  }
  const beforeByPath = new Map([...before].map(([key, v]) => [v.path, key]));
  const afterByPath = new Map([...after].map(([key, v]) => [v.path, key]));
  for (const { from, to } of input.renames ?? []) {
    const bKey = beforeByPath.get(from);
    const aKey = afterByPath.get(to);
    const b = bKey === undefined ? undefined : before.get(bKey);
    const a = aKey === undefined ? undefined : after.get(aKey);
    if (!b || !a || bKey === undefined || aKey === undefined) continue;
    pairs.push({ b, a });
    before.delete(bKey);
    after.delete(aKey);
  }
  pairByBody(before, after, pairs);
  for (const b of before.values()) pairs.push({ b });
  for (const a of after.values()) pairs.push({ a });

  const entries: DiffEntry[] = [];
  for (const { b, a } of pairs) {
    const described = a && b ? describeChange(b, a) : a ? describeOne(a, "added") : b ? describeOne(b, "retracted") : undefined;
    if (described) entries.push(described);
  }
  entries.sort((x, y) => compare(x.id, y.id) || compare(x.path, y.path));
  return { entries, warnings };
}

/** Split planned entries into one list per kind: each entry under its most significant kind (`kinds[0]`). */
export function groupByKind(entries: readonly DiffEntry[]): Pick<KnowledgeDiff, ChangeKind> {
  const groups: Pick<KnowledgeDiff, ChangeKind> = { added: [], retracted: [], restored: [], archived: [], edited: [], confirmed: [], renamed: [] };
  for (const entry of entries) {
    const kind = entry.kinds[0];
    if (kind) groups[kind].push(entry);
  }
  return groups;
}

function byKey(versions: readonly EntryVersion[], onDuplicate?: (id: string, kept: string, dropped: string) => void): Map<string, EntryVersion> {
  const map = new Map<string, EntryVersion>();
  for (const version of [...versions].sort((x, y) => compare(x.path, y.path))) {
    const key = keyOf(version);
    const seen = map.get(key);
    if (seen) onDuplicate?.(key, seen.path, version.path);
    else map.set(key, version);
  }
  return map;
}

/** Pair leftovers whose finding, evidence, verify and fix text are identical (a rename git did not see); unique matches only. */
function pairByBody(before: Map<string, EntryVersion>, after: Map<string, EntryVersion>, pairs: Array<{ b?: EntryVersion; a?: EntryVersion }>): void {
  const signature = (v: EntryVersion) => (v.entry ? SECTIONS.map((s) => sectionText(v.entry!, s)).join("\0") : undefined);
  const group = (side: Map<string, EntryVersion>) => {
    const bySignature = new Map<string, string[]>();
    for (const [key, v] of side) {
      const sig = signature(v);
      if (sig === undefined || sig.replace(/\0/g, "") === "") continue;
      bySignature.set(sig, [...(bySignature.get(sig) ?? []), key]);
    }
    return bySignature;
  };
  const afterGroups = group(after);
  for (const [sig, bKeys] of group(before)) {
    const aKeys = afterGroups.get(sig);
    if (bKeys.length !== 1 || aKeys?.length !== 1) continue;
    const b = before.get(bKeys[0]!)!;
    const a = after.get(aKeys[0]!)!;
    pairs.push({ b, a });
    before.delete(bKeys[0]!);
    after.delete(aKeys[0]!);
  }
}

function describeOne(version: EntryVersion, kind: "added" | "retracted"): DiffEntry {
  const out = facts(version, version);
  out.kinds = [kind];
  if (!version.entry) out.unparsable = kind === "added" ? "head" : "base";
  if (kind === "retracted") delete out.errors;
  return out;
}

function describeChange(b: EntryVersion, a: EntryVersion): DiffEntry | undefined {
  if (b.hash === a.hash && b.path === a.path) return undefined;
  const kinds = new Set<ChangeKind>();
  const out = facts(a, b);
  const previousId = keyOf(b);
  if (previousId !== out.id) {
    out.previousId = previousId;
    kinds.add("renamed");
  }
  if (b.path !== a.path) out.previousPath = b.path;
  if (path.posix.basename(b.path) !== path.posix.basename(a.path)) kinds.add("renamed");
  if (b.state !== a.state) kinds.add(a.state === "archived" ? "archived" : "restored");

  if (!b.entry || !a.entry) {
    out.unparsable = !b.entry && !a.entry ? "both" : a.entry ? "base" : "head";
    if (b.hash !== a.hash) kinds.add("edited");
    return finish(out, kinds);
  }
  const sections = SECTIONS.filter((s) => sectionText(b.entry!, s) !== sectionText(a.entry!, s));
  const metadata: string[] = [];
  const fb = b.entry.frontmatter;
  const fa = a.entry.frontmatter;
  for (const key of [...new Set([...Object.keys(fb), ...Object.keys(fa)])].sort()) {
    if (LIFECYCLE_KEYS.has(key) || (key === "id" && out.previousId !== undefined)) continue;
    if (canonical(fb[key]) !== canonical(fa[key])) metadata.push(key);
  }
  const lcBefore = dateText(fb.lastConfirmed);
  const lcAfter = dateText(fa.lastConfirmed);
  if (lcBefore !== lcAfter) {
    if (lcBefore !== undefined && lcAfter !== undefined && lcAfter > lcBefore) {
      kinds.add("confirmed");
      out.confirmedFrom = lcBefore;
    } else {
      metadata.push("lastConfirmed");
    }
  }
  if (canonical(fb.provenance) !== canonical(fa.provenance) && !kinds.has("confirmed")) metadata.push("provenance");
  if (b.state === a.state) {
    for (const key of ["archived", "archivedReason"]) if (canonical(fb[key]) !== canonical(fa[key])) metadata.push(key);
  }
  if (sections.length) out.sections = sections;
  if (metadata.length) out.metadata = metadata.sort();
  if (sections.length || metadata.length) kinds.add("edited");
  if (kinds.size === 0 && b.hash !== a.hash) {
    kinds.add("edited");
    out.formattingOnly = true;
  }
  return finish(out, kinds);
}

function finish(out: DiffEntry, kinds: Set<ChangeKind>): DiffEntry | undefined {
  if (kinds.size === 0) return undefined;
  out.kinds = CHANGE_KINDS.filter((k) => kinds.has(k));
  return out;
}

/** Facts of `version` for the report; title and finding fall back to `context` when `version` does not parse. */
function facts(version: EntryVersion, context: EntryVersion): DiffEntry {
  const entry = version.entry;
  const described = entry ?? context.entry;
  const out: DiffEntry = { id: keyOf(version), kinds: [], path: version.path, state: version.state, finding: described?.finding.text ?? "" };
  const title = described?.frontmatter.title;
  if (typeof title === "string" && title.trim()) out.title = title.trim();
  if (entry) {
    const fm = entry.frontmatter;
    const lastConfirmed = dateText(fm.lastConfirmed);
    if (lastConfirmed !== undefined) out.lastConfirmed = lastConfirmed;
    if (fm.provenance !== undefined) out.provenance = String(fm.provenance);
    if (version.state === "archived") {
      const archived = dateText(fm.archived);
      if (archived !== undefined) out.archived = archived;
      if (fm.archivedReason !== undefined) out.archivedReason = String(fm.archivedReason);
    }
  }
  if (version.errors.length) out.errors = [...version.errors];
  return out;
}

function dateText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().slice(0, 10);
  return String(value);
}

/** A section's text with whitespace collapsed ("" for an absent Fix). */
function sectionText(entry: Entry, section: BodySection): string {
  return normalise(entry[section]?.text ?? "");
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Stable JSON for comparing frontmatter values (object keys sorted). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => compare(x, y)));
    }
    return v;
  }) ?? "undefined";
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
