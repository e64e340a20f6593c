/** `cairn check`: every rule over every (or the given) entry file. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { sortDiagnostics, type Diagnostic } from "../entry/diagnostic.js";
import { entryFileFor, listEntryFiles, type EntryFile } from "../store/files.js";
import { relativePath, type Layout } from "../store/layout.js";
import { loadKnowledge, type LoadedKnowledge } from "../store/load.js";
import { anchorResolverFor } from "./anchors.js";
import { checkReferences } from "./references.js";
import { createSanitizer } from "./sanitize/index.js";

export type CheckOptions = {
  /** Files or directories to report on (repo-relative or absolute). Default: the whole knowledge dir. */
  paths?: string[];
  /** Resolve evidence anchors against the repository. Default true. */
  anchors?: boolean;
  /** Today's date YYYY-MM-DD (UTC). Default: now. */
  today?: string;
  /** Extra diagnostics over the loaded entries (e.g. near-duplicates from the search index). */
  extraRules?: Array<(loaded: LoadedKnowledge) => Promise<Diagnostic[]>>;
};

export type CheckReport = { diagnostics: Diagnostic[]; errors: number; warnings: number; files: number };

export async function runCheck(layout: Layout, config: CairnConfig, options: CheckOptions = {}): Promise<CheckReport> {
  const all = await listEntryFiles(layout);
  const wanted = options.paths?.length ? selectFiles(layout, all, options.paths) : undefined;
  const sanitize = createSanitizer({ allowHosts: config.allowHosts, denyPatterns: config.denyPatterns });
  const resolver = options.anchors === false ? undefined : anchorResolverFor(layout, { repos: config.repos });
  const report = wanted ? new Set(wanted.map((f) => f.rel)) : undefined;
  const files = wanted ? mergeFiles(all, wanted) : all;

  const loaded = await loadKnowledge(layout, {
    files,
    ...(options.today ? { today: options.today } : {}),
    visit: async (file, result) => {
      if (report && !report.has(file.rel)) return [];
      const extra: Diagnostic[] = [];
      if (result.bytes && !result.diagnostics.some((d) => d.rule === "file-binary" || d.rule === "encoding-invalid")) {
        extra.push(...sanitize(Buffer.from(result.bytes).toString("utf8"), file.rel));
      }
      if (resolver && result.entry) {
        for (const anchor of result.entry.evidence.anchors) extra.push(...(await resolver.resolve(anchor, file.rel, result.entry)));
      }
      return extra;
    },
  });
  const diagnostics = [...loaded.diagnostics, ...checkReferences(loaded.entries, loaded.byId)];
  for (const rule of options.extraRules ?? []) diagnostics.push(...(await rule(loaded)));
  const shown = sortDiagnostics(report ? diagnostics.filter((d) => report.has(d.file)) : diagnostics);
  return {
    diagnostics: shown,
    errors: shown.filter((d) => d.severity === "error").length,
    warnings: shown.filter((d) => d.severity === "warning").length,
    files: report ? report.size : files.length,
  };
}

/** Expand the user's paths to entry files; a markdown file outside the knowledge dir is checked as an active entry. */
function selectFiles(layout: Layout, all: EntryFile[], paths: string[]): EntryFile[] {
  const out = new Map<string, EntryFile>();
  for (const p of paths) {
    const abs = path.resolve(layout.root, p);
    const under = all.filter((f) => f.abs === abs || f.abs.startsWith(abs + path.sep));
    if (under.length) for (const f of under) out.set(f.rel, f);
    else if (abs.toLowerCase().endsWith(".md")) {
      const known = entryFileFor(layout, abs) ?? { abs, rel: relativePath(layout, abs), state: "active" as const };
      out.set(known.rel, known);
    }
  }
  return [...out.values()];
}

function mergeFiles(all: EntryFile[], wanted: EntryFile[]): EntryFile[] {
  const map = new Map(all.map((f) => [f.rel, f]));
  for (const f of wanted) map.set(f.rel, f);
  return [...map.values()].sort((a, b) => a.rel.localeCompare(b.rel));
}
