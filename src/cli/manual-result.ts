/** Print the outcome of a manual operation (confirm, retract, restore, supersede, set-status) and pick its exit code. */
import type { ManualResult } from "../lifecycle/manual.js";
import { EXIT, json, type Io } from "./output.js";

export function reportManual(io: Io, verb: string, result: ManualResult, done: (r: Extract<ManualResult, { kind: "done" }>) => string, options: { json?: boolean; knowledgeDir: string }): number {
  if (options.json) {
    json(io, result);
    return result.kind === "done" ? EXIT.ok : EXIT.failed;
  }
  switch (result.kind) {
    case "done":
      io.out(done(result));
      return EXIT.ok;
    case "not-found": {
      const dir = options.knowledgeDir;
      const hint = result.suggestions.length ? ` Did you mean: ${result.suggestions.join(", ")}?` : " Run cairn status --all to list ids.";
      io.err(`cairn ${verb}: no entry with id "${result.id}" in ${dir}/ or ${dir}/archive/.${hint}`);
      return EXIT.failed;
    }
    case "refused":
      io.err(`cairn ${verb}: ${result.reason}`);
      return EXIT.failed;
  }
}
