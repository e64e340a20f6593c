import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, type Io } from "../output.js";

export async function manual(kb: KnowledgeBase, io: Io, verb: "confirm" | "retract" | "restore", id: string, opts: { json?: boolean }): Promise<number> {
  const result = await kb[verb](id);
  if (opts.json) {
    json(io, result);
    return result.kind === "done" ? EXIT.ok : EXIT.failed;
  }
  switch (result.kind) {
    case "done": {
      const what = { confirm: result.changed ? "confirmed" : "already confirmed today:", retract: "retracted (deleted)", restore: "restored to" }[verb];
      io.out(`${what} ${verb === "restore" ? result.path : `${result.id} (${result.path})`}`);
      return EXIT.ok;
    }
    case "not-found":
      io.err(`cairn ${verb}: no entry with id "${id}" in ${kb.config.knowledgeDir}/ or ${kb.config.knowledgeDir}/archive/.${result.suggestions.length ? ` Did you mean: ${result.suggestions.join(", ")}?` : " Run cairn status --all to list ids."}`);
      return EXIT.failed;
    case "refused":
      io.err(`cairn ${verb}: ${result.reason}`);
      return EXIT.failed;
  }
}
