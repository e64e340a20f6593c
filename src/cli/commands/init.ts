import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, json, type Io } from "../output.js";

export async function init(kb: KnowledgeBase, io: Io, opts: { json?: boolean }): Promise<number> {
  const result = await kb.init();
  if (opts.json) return json(io, result), EXIT.ok;
  for (const p of result.created) io.out(`created   ${p}`);
  for (const p of result.updated) io.out(`updated   ${p}`);
  if (!result.created.length && !result.updated.length) io.out(`cairn is already set up in ${kb.layout.root} (nothing changed)`);
  else io.out(`\nNext: cairn new my-first-entry --finding "…" --evidence "src/file.ts:10, fn()" --verify "…"`);
  return EXIT.ok;
}
