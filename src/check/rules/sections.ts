/** Body rules, reported by the entry parser (src/entry/parse.ts): a finding, evidence first, then verify steps. */
import { MAX_EVIDENCE_LINES } from "../../entry/anchors.js";
import { type RuleModule, rulesOf } from "./types.js";

export const sectionRules: RuleModule = {
  name: "sections",
  rules: [
    ...rulesOf("sections", { gate: true }, [
      ["finding-missing", "error", "no finding before `Evidence:`"],
      ["evidence-missing", "error", "no `Evidence:` paragraph or `## Evidence` section"],
      ["evidence-no-anchor", "error", "evidence without a repo-relative path, glob or symbol"],
      ["verify-missing", "error", "no `Verify:` paragraph or `## Verify` section"],
    ]),
    // Quality warnings: they do not withhold an entry (even when raised to errors) and may be disabled inline.
    ...rulesOf("sections", { gate: false }, [
      ["section-repeated", "warning", "a second Evidence or Verify section (only the first is used)"],
      ["verify-too-many", "warning", "more than 3 verification steps"],
      ["evidence-too-many", "warning", `more than ${MAX_EVIDENCE_LINES} evidence anchors (inject shows only the first ${MAX_EVIDENCE_LINES})`],
      ["finding-too-long", "warning", "a finding over 3 sentences or 800 characters"],
    ]),
  ],
};
