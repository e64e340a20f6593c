/** Near-duplicate entries (opt-in: `check --duplicates`), judged by the search index (src/check/duplicates.ts). */
import { type RuleModule, rulesOf } from "./types.js";

export const duplicateRules: RuleModule = {
  name: "duplicates",
  rules: rulesOf("duplicates", { gate: false }, [["near-duplicate", "warning", "two active entries more similar than `duplicateThreshold` (opt-in: --duplicates)"]]),
  create: ({ options }) => (options.nearDuplicates ? { knowledge: options.nearDuplicates } : {}),
};
