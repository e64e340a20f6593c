/** Ids unique across knowledge/ and knowledge/archive/, reported by the loader (src/store/load.ts). */
import { type RuleModule, rulesOf } from "./types.js";

export const idRules: RuleModule = {
  name: "ids",
  // A duplicate id breaks every lookup by id, whichever file wins: never switched off inside an entry, and no copy is
  // injected (a file that takes an existing entry's id would otherwise replace it in prompts, or hide it).
  rules: [
    ...rulesOf("ids", { gate: true, inline: false }, [["id-duplicate", "error", "two entries with the same id"]]),
    ...rulesOf("ids", { gate: false, inline: false }, [
      ["archive-name-taken", "warning", "an active entry whose file name an archived entry (another id) has: it cannot be archived"],
      ["entry-misplaced", "warning", "a markdown file in a subdirectory of the knowledge directory, or not named .md: never read as an entry"],
    ]),
  ],
};
