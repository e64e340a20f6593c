/**
 * The one registry of rules: every rule id cairn can report, with its meta. `check`, `status`,
 * `watch`, `search --explain` and the inject gate all run these modules through the engine
 * (src/check/engine.ts). Module files are light; heavy dependencies load inside `create`.
 */
import { CairnError } from "../../errors.js";
import { closest } from "../../text/suggest.js";
import { anchorRules } from "./anchors.js";
import { configRules } from "./config.js";
import { directiveRules } from "./directives.js";
import { duplicateRules } from "./duplicates.js";
import { fileRules } from "./file.js";
import { frontmatterRules } from "./frontmatter.js";
import { idRules } from "./ids.js";
import { ledgerRules } from "./ledger.js";
import { referenceRules } from "./references.js";
import { sanitizeRules } from "./sanitize.js";
import { sectionRules } from "./sections.js";
import type { RuleMeta, RuleModule, RuleSetting } from "./types.js";

export type { RuleCategory, RuleMeta, RuleModule, RuleSetting } from "./types.js";

/** Every rule module, in the order their diagnostics are documented. */
export const RULE_MODULES: readonly RuleModule[] = [
  fileRules,
  frontmatterRules,
  sectionRules,
  sanitizeRules,
  anchorRules,
  idRules,
  referenceRules,
  duplicateRules,
  directiveRules,
  ledgerRules,
  configRules,
];

const META = new Map<string, RuleMeta>();
for (const module of RULE_MODULES) {
  for (const rule of module.rules) {
    if (META.has(rule.id)) throw new Error(`internal: rule id ${rule.id} is registered twice`);
    META.set(rule.id, rule);
  }
}

/** The meta of a rule id; undefined for an id no module registered. */
export function ruleMeta(id: string): RuleMeta | undefined {
  return META.get(id);
}

/** Every registered rule id. */
export function ruleIds(): string[] {
  return [...META.keys()];
}

const SETTINGS: readonly RuleSetting[] = ["error", "warning", "off"];

/**
 * Validate config `rules` (`{"anchor-unresolved": "warning"}`): known ids only (with did-you-mean),
 * settings error | warning | off, and no change to the rules that mean the file is not an entry.
 */
export function validateRuleSettings(rules: Record<string, string>, source: string): Record<string, RuleSetting> {
  const problems: string[] = [];
  for (const [id, setting] of Object.entries(rules)) {
    const meta = META.get(id);
    if (!meta) {
      const near = closest(id, META.keys());
      problems.push(`  rules.${id}: no rule has this id${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : ""} (cairn check lists rule ids next to each problem; README "Rules" lists them all)`);
    } else if (!SETTINGS.includes(setting as RuleSetting)) {
      problems.push(`  rules.${id}: expected "error", "warning" or "off" (got ${JSON.stringify(setting)})`);
    } else if (meta.fatal && setting !== meta.severity) {
      const why =
        meta.category === "ledger" ? "the ledger is append-only, and a change that breaks that must not be able to switch the rule off"
        : meta.category === "config" ? "it reports changes of this very file, and a change must not be able to switch off what reports it"
        : "a file with this problem cannot be read as an entry at all";
      problems.push(`  rules.${id}: cannot be changed: ${why}`);
    }
  }
  if (problems.length) {
    throw new CairnError("CONFIG", `${source} is invalid:\n${problems.join("\n")}\nExample: { "rules": { "anchor-unresolved": "warning", "frontmatter-unknown-key": "off" } }`);
  }
  return rules as Record<string, RuleSetting>;
}
