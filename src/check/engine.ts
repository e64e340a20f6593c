/**
 * The rule engine: runs every registered rule module (rules/registry.ts), then applies config
 * `rules` severities and the entry's inline disable comments. One engine for `check`, `status`,
 * `watch`, `search --explain` and the inject gate.
 */
import type { CairnConfig } from "../config.js";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { readEntryFile, type EntryFile, type ReadResult } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import type { LoadedKnowledge } from "../store/load.js";
import { closest } from "../text/suggest.js";
import { findDirectives, type Directive } from "./directives.js";
import { RULE_MODULES, ruleIds, ruleMeta } from "./rules/registry.js";
import type { EntryTarget, LintOptions, RuleHooks, RuleSetting } from "./rules/types.js";

export type { LintOptions } from "./rules/types.js";

/** Problems listed per rule and file; the rest are counted in one line. */
const MAX_PER_RULE = 60;

export type Linter = {
  /** Raw diagnostics of the per-entry rules for one file (no policy yet); remembers the file's inline directives. */
  entryDiagnostics(target: EntryTarget): Promise<Diagnostic[]>;
  /** Raw diagnostics of the cross-entry rules (references, near-duplicates). */
  knowledgeDiagnostics(loaded: LoadedKnowledge): Promise<Diagnostic[]>;
  /** Apply config severities and inline disables to raw diagnostics; adds the problems of the directives of `files`. */
  finalize(diagnostics: Diagnostic[], files: Iterable<string>): Diagnostic[];
  /** Read one entry file and return it with its final diagnostics (parser + per-entry rules + policy). */
  lintFile(file: EntryFile, today?: string): Promise<{ read: ReadResult; diagnostics: Diagnostic[] }>;
};

/** The entry as the rules see it: text only when the bytes are readable UTF-8. */
export function targetOf(file: EntryFile, read: ReadResult): EntryTarget {
  const unreadable = read.diagnostics.some((d) => d.rule === "file-binary" || d.rule === "encoding-invalid");
  return {
    file: file.rel,
    state: file.state,
    ...(read.bytes && !unreadable ? { text: Buffer.from(read.bytes).toString("utf8") } : {}),
    ...(read.entry ? { entry: read.entry } : {}),
  };
}

/**
 * The policy half of the engine: config severities, inline disables and the per-rule cap, over raw
 * diagnostics. Needs no rule module, so results cached from an earlier run (status) go through it too.
 */
export type Policy = {
  /** False when config sets the rule to "off". */
  enabled(id: string): boolean;
  /** Apply severities and the inline disables of `directives` (file → its directives) to raw diagnostics; adds the directives' own problems. */
  finalize(diagnostics: Diagnostic[], files: Iterable<string>, directives: ReadonlyMap<string, Directive[]>): Diagnostic[];
};

export function createPolicy(config: Pick<CairnConfig, "rules">): Policy {
  const settings: Record<string, RuleSetting> = config.rules ?? {};
  return {
    enabled: (id) => (settings[id] ?? ruleMeta(id)?.severity) !== "off",
    finalize(diagnostics, files, directives) {
      const out: Diagnostic[] = [];
      // Only files with directives can have directive problems (status passes every entry's path: no set of 10k).
      const seen = new Set<string>();
      for (const file of files) {
        const list = directives.get(file);
        if (list === undefined || seen.has(file)) continue;
        seen.add(file);
        out.push(...directiveProblems(file, list));
      }
      const raw = [...diagnostics, ...out];
      const final: Diagnostic[] = [];
      const counts = new Map<string, number>();
      for (const d of raw) {
        const meta = ruleMeta(d.rule);
        const severity = settings[d.rule] ?? meta?.severity ?? d.severity;
        if (severity === "off") continue;
        if ((meta?.inline ?? true) && disabledIn(directives.get(d.file), d.rule)) continue;
        // One hostile file must not flood the output: the first MAX_PER_RULE problems of a rule, then a count.
        const key = `${d.file}\0${d.rule}`;
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        if (count === MAX_PER_RULE + 1) final.push({ ...d, severity, message: `… more ${d.rule} problems in this file (the first ${MAX_PER_RULE} are listed)` });
        if (count > MAX_PER_RULE) continue;
        final.push(severity === d.severity ? d : { ...d, severity });
      }
      return final;
    },
  };
}

export async function createLinter(layout: Layout, config: CairnConfig, options: LintOptions = {}): Promise<Linter> {
  const policy = createPolicy(config);
  const enabled = policy.enabled;
  const setup = { layout, config, options, enabled };
  const modules = await Promise.all(
    RULE_MODULES.filter((m) => m.create && m.rules.some((r) => enabled(r.id))).map(async (m): Promise<RuleHooks> => m.create!(setup)),
  );
  const directives = new Map<string, Directive[]>();

  const linter: Linter = {
    async entryDiagnostics(target) {
      if (target.text !== undefined) directives.set(target.file, findDirectives(target.text));
      const out: Diagnostic[] = [];
      for (const hooks of modules) if (hooks.entry) out.push(...(await hooks.entry(target)));
      return out;
    },
    async knowledgeDiagnostics(loaded) {
      const out: Diagnostic[] = [];
      for (const hooks of modules) if (hooks.knowledge) out.push(...(await hooks.knowledge(loaded)));
      return out;
    },
    finalize: (diagnostics, files) => policy.finalize(diagnostics, files, directives),
    async lintFile(file, today) {
      const read = await readEntryFile(layout, file, today);
      const raw = [...read.diagnostics, ...(await linter.entryDiagnostics(targetOf(file, read)))];
      return { read, diagnostics: linter.finalize(raw, [file.rel]) };
    },
  };
  return linter;
}

function disabledIn(list: Directive[] | undefined, rule: string): boolean {
  return list?.some((d) => d.rules.length === 0 || d.rules.includes(rule)) ?? false;
}

/** Directives naming unknown rules, or rules that guard injection (those stay on: change them in config instead). */
function directiveProblems(file: string, list: Directive[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const directive of list) {
    for (const rule of directive.rules) {
      const meta = ruleMeta(rule);
      if (!meta) {
        const near = closest(rule, ruleIds());
        out.push(
          diagnostic(file, "disable-unknown-rule", "warning", `\`cairn-disable ${rule}\` names no known rule${near.length ? `; did you mean ${near.map((n) => `\`${n}\``).join(", ")}?` : ""}; expected rule ids as cairn check prints them, e.g. <!-- cairn-disable anchor-unresolved -->`, directive),
        );
      } else if (!meta.inline) {
        out.push(
          diagnostic(file, "disable-not-allowed", "error", `\`${rule}\` cannot be disabled inside an entry: it ${meta.gate ? "guards what reaches agent prompts" : "protects every lookup by id"}, and an entry must not vouch for itself; the rule stays on. Fix the entry, or change the rule for the whole project in cairn.config.json, e.g. { "rules": { "${rule}": "warning" } }, where the change is reviewed like code`, directive),
        );
      }
    }
  }
  return out;
}
