/** `cairn check`: every rule over every (or the given) entry file, through the one rule engine. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { sortDiagnostics, type Diagnostic } from "../entry/diagnostic.js";
import { entryFileFor, listEntryFiles, type EntryFile } from "../store/files.js";
import { relativePath, type Layout } from "../store/layout.js";
import { loadKnowledge, type LoadedKnowledge, type LoadOptions } from "../store/load.js";
import { createLinter, targetOf, type Linter, type LintOptions } from "./engine.js";
import type { CheckOptions, CheckReport } from "../types/check.js";

export type { CheckReport } from "../types/check.js";

/** Options of a check run: the public CheckOptions (less `duplicates`, which KnowledgeBase turns into `nearDuplicates`) and the date. */
export type CheckRunOptions = Omit<CheckOptions, "duplicates"> & {
  /** Today's date YYYY-MM-DD (UTC). Default: now. */
  today?: string;
};

export type KnowledgeLint = {
  loaded: LoadedKnowledge;
  /** Final diagnostics (config severities and inline disables applied), sorted; only of the reported files. */
  diagnostics: Diagnostic[];
  /** Number of files reported on. */
  files: number;
};

/** Load every entry and run every rule; `paths` narrows what is reported (references still see every entry). */
export async function lintKnowledge(layout: Layout, config: CairnConfig, options: CheckRunOptions & Pick<LintOptions, "nearDuplicates"> = {}): Promise<KnowledgeLint> {
  const all = await listEntryFiles(layout);
  const wanted = options.paths?.length ? selectFiles(layout, all, options.paths) : undefined;
  const linter = await createLinter(layout, config, {
    ...(options.anchors === false ? { anchors: false } : {}),
    ...(options.nearDuplicates ? { nearDuplicates: options.nearDuplicates } : {}),
  });
  const report = wanted ? new Set(wanted.map((f) => f.rel)) : undefined;
  const files = wanted ? mergeFiles(all, wanted) : all;
  return lintWith(layout, linter, files, { ...(report ? { report } : {}), ...(options.today ? { today: options.today } : {}) });
}

export type LintWithOptions = {
  /** Only these files (repo-relative) get per-entry rules and are reported. Default: every file. */
  report?: ReadonlySet<string>;
  /** Today's date YYYY-MM-DD (UTC). Default: now. */
  today?: string;
  /** Read a file another way than from disk (an editor's buffer, a cached parse); see `LoadOptions.read`. Default: from disk. */
  read?: LoadOptions["read"];
};

/**
 * The one pass behind `check`, `status` and the language server: load `files` (each read once),
 * run the per-entry rules on the reported ones and the cross-entry rules over all, then apply the
 * policy (config severities, inline disables).
 */
export async function lintWith(layout: Layout, linter: Linter, files: EntryFile[], options: LintWithOptions = {}): Promise<KnowledgeLint> {
  const { report } = options;
  const loaded = await loadKnowledge(layout, {
    files,
    ...(options.today ? { today: options.today } : {}),
    ...(options.read ? { read: options.read } : {}),
    visit: (file, result) => (report && !report.has(file.rel) ? [] : linter.entryDiagnostics(targetOf(file, result))),
  });
  const raw = [...loaded.diagnostics, ...(await linter.knowledgeDiagnostics(loaded))];
  const final = linter.finalize(report ? raw.filter((d) => report.has(d.file)) : raw, report ?? files.map((f) => f.rel));
  return {
    loaded,
    diagnostics: sortDiagnostics(final),
    files: report ? report.size : files.length,
  };
}

export async function runCheck(layout: Layout, config: CairnConfig, options: CheckRunOptions & Pick<LintOptions, "nearDuplicates"> = {}): Promise<CheckReport> {
  const { diagnostics, files } = await lintKnowledge(layout, config, options);
  return {
    diagnostics,
    errors: diagnostics.filter((d) => d.severity === "error").length,
    warnings: diagnostics.filter((d) => d.severity === "warning").length,
    files,
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

/** `all` with `wanted` added (by path), sorted by path. */
export function mergeFiles(all: EntryFile[], wanted: EntryFile[]): EntryFile[] {
  const map = new Map(all.map((f) => [f.rel, f]));
  for (const f of wanted) map.set(f.rel, f);
  return [...map.values()].sort((a, b) => a.rel.localeCompare(b.rel));
}
