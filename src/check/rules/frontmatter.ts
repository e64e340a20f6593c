/** Frontmatter rules, reported by the entry parser with the YAML line of the key (src/entry/parse.ts). */
import { type RuleModule, rulesOf } from "./types.js";

export const frontmatterRules: RuleModule = {
  name: "frontmatter",
  rules: [
    ...rulesOf("frontmatter", { gate: true }, [
      ["frontmatter-required", "error", "missing `lastConfirmed` or `provenance`"],
      ["frontmatter-invalid", "error", "a known key with a wrong type or value (`lastConfirmed: nope`, `provenance: compound`)"],
      ["date-in-future", "error", "`lastConfirmed`, `created` or `archived` after today (UTC)"],
      ["filename-invalid", "error", "file name that is not a slug"],
      ["frontmatter-not-editable", "error", "frontmatter cairn cannot edit line by line (a flow mapping, indented keys, anchors): confirm, record and decay would fail on it"],
    ]),
    // Unknown keys are kept and never rendered into prompts: a quality warning, not a gate.
    ...rulesOf("frontmatter", { gate: false }, [
      ["frontmatter-unknown-key", "warning", "a key cairn does not know (kept; often a typo)"],
      ["archived-key-active", "warning", "`archived` or `archivedReason` on an entry in the active directory (moved back by hand)"],
    ]),
  ],
};
