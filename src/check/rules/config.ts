/**
 * The configuration as a change to it: `cairn diff` and the GitHub Action compare cairn.config.json at two revisions
 * (src/diff/config-compare.ts). `check` reads one revision and cannot tell a rule switched off from one never on.
 */
import { type RuleModule, rulesOf } from "./types.js";

export const configRules: RuleModule = {
  name: "config",
  // Not configurable: a pull request could otherwise switch them off in the very change they report.
  rules: rulesOf("config", { gate: false, inline: false, fatal: true }, [
    ["config-gate-weakened", "error", "a change sets a gating rule (one that withholds an entry from prompts) below error or off in cairn.config.json"],
    ["config-weakened", "warning", "a change loosens cairn.config.json otherwise: a rule lowered, hosts allowed, deny patterns dropped, another knowledge dir, a longer decay window"],
  ]),
};
