/** Broken `supersedes` / `supersededBy` / `contradicts` references, across the loaded entries. */
import { checkReferences } from "../references.js";
import { type RuleModule, rulesOf } from "./types.js";

export const referenceRules: RuleModule = {
  name: "references",
  rules: rulesOf("references", { gate: false }, [
    ["reference-broken", "error", "`supersedes` / `supersededBy` / `contradicts` naming an id that does not exist"],
    ["reference-self", "error", "an entry referencing itself"],
  ]),
  create: () => ({ knowledge: (loaded) => checkReferences(loaded.entries, loaded.byId) }),
};
