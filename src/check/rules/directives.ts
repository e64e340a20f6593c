/** Problems with `<!-- cairn-disable … -->` comments, reported by the engine while applying them (src/check/directives.ts). */
import { type RuleModule, rulesOf } from "./types.js";

export const directiveRules: RuleModule = {
  name: "directives",
  rules: rulesOf("directives", { gate: false, inline: false }, [
    ["disable-not-allowed", "error", "an inline disable naming a rule that guards injection (change it in cairn.config.json `rules` instead)"],
    ["disable-unknown-rule", "warning", "an inline disable naming no known rule"],
  ]),
};
