import type { KnowledgeBase } from "../../knowledge-base.js";
import { reportManual } from "../manual-result.js";
import type { Io } from "../output.js";

export async function manual(kb: KnowledgeBase, io: Io, verb: "confirm" | "retract" | "restore", id: string, opts: { json?: boolean }): Promise<number> {
  const result = await kb[verb](id);
  return reportManual(
    io,
    verb,
    result,
    (r) => {
      // A confirmation is recorded either way (the decay counter starts again from now); the file changes only when its
      // date or provenance does.
      const what = { confirm: r.changed ? "confirmed" : "confirmed again (the file already said today, independent):", retract: "retracted (deleted)", restore: "restored to" }[verb];
      return `${what} ${verb === "restore" ? r.path : `${r.id} (${r.path})`}`;
    },
    { ...opts, knowledgeDir: kb.config.knowledgeDir },
  );
}
