/**
 * The rule engine's vocabulary (after ESLint's rules): every rule id has `meta` in one registry;
 * a rule module groups ids that one pass over the entry finds together and may emit several.
 */
import type { CairnConfig } from "../../config.js";
import type { Diagnostic, Severity } from "../../entry/diagnostic.js";
import type { Entry, EntryState } from "../../entry/types.js";
import type { Layout } from "../../store/layout.js";
import type { LoadedKnowledge } from "../../store/load.js";

export type { RuleSetting } from "../../types/config.js";

/** What a rule guards; the gate withholds entries with errors from the gating rules (see `gate`). */
export type RuleCategory =
  | "file"
  | "frontmatter"
  | "sections"
  | "secrets"
  | "network"
  | "paths"
  | "deny"
  | "injection"
  | "anchors"
  | "references"
  | "ids"
  | "duplicates"
  | "directives"
  | "ledger"
  | "config";

export type RuleMeta = {
  /** Stable id, e.g. `anchor-unresolved`; what config `rules` and inline disables name. */
  id: string;
  category: RuleCategory;
  /** Severity before configuration. */
  severity: Severity;
  /** One line for the README and `--explain`: what the rule finds. */
  description: string;
  /** An error from this rule withholds the entry from `inject` (frontmatter, sections, sanitization, prompt injection). */
  gate: boolean;
  /** May be switched off by `<!-- cairn-disable ID -->` inside the entry; never true for a gating rule. */
  inline: boolean;
  /** Its severity cannot be configured: the file cannot be read as an entry at all, or (ledger) a change broke the append-only ledger. */
  fatal?: boolean;
};

/** One entry file as the per-entry rules see it. */
export type EntryTarget = {
  /** Repo-relative path, forward slashes. */
  file: string;
  state: EntryState;
  /** The decoded file text; undefined when the file could not be read as UTF-8 text. */
  text?: string;
  /** The parsed entry; undefined when the file could not be parsed. */
  entry?: Entry;
  /** The frontmatter as YAML decoded it, when the entry is not at hand (a catalogue record's); else the entry's. */
  frontmatter?: Record<string, unknown>;
};

export type LintOptions = {
  /** Resolve evidence anchors against the repository. Default true. */
  anchors?: boolean;
  /** Run opt-in rules (near-duplicates) with this provider of the search index's verdicts. Default: opt-in rules do not run. */
  nearDuplicates?: (loaded: LoadedKnowledge) => Promise<Diagnostic[]>;
};

export type RuleSetup = {
  layout: Layout;
  config: CairnConfig;
  options: LintOptions;
  /** False when config sets the rule to "off": skip the work. */
  enabled(id: string): boolean;
};

/** What a module does once set up: per entry, or across the loaded knowledge base. */
export type RuleHooks = {
  entry?(target: EntryTarget): Promise<Diagnostic[]> | Diagnostic[];
  knowledge?(loaded: LoadedKnowledge): Promise<Diagnostic[]> | Diagnostic[];
};

export type RuleModule = {
  /** Module name, e.g. `sanitize`. */
  name: string;
  /** Every id the module may report, with its meta. */
  rules: readonly RuleMeta[];
  /**
   * Set up the module for one run (compile options, open caches); heavy dependencies are imported
   * here, lazily. Absent for ids the entry parser or loader reports while reading the file.
   */
  create?(setup: RuleSetup): Promise<RuleHooks> | RuleHooks;
};

/** Build metas of one category that share gate / inline flags. */
export function rulesOf(
  category: RuleCategory,
  flags: { gate: boolean; inline?: boolean; fatal?: boolean },
  list: ReadonlyArray<[id: string, severity: Severity, description: string]>,
): RuleMeta[] {
  return list.map(([id, severity, description]) => ({
    id,
    category,
    severity,
    description,
    gate: flags.gate,
    inline: flags.inline ?? !flags.gate,
    ...(flags.fatal ? { fatal: true } : {}),
  }));
}
