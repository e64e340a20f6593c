/** Commands that only make sense in a set-up project say so instead of reporting "0 entries". */
import { stat } from "node:fs/promises";
import { CairnError } from "../errors.js";
import type { KnowledgeBase } from "../knowledge-base.js";

export async function requireKnowledgeDir(kb: KnowledgeBase): Promise<void> {
  const info = await stat(kb.layout.knowledge).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new CairnError("USAGE", `no ${kb.config.knowledgeDir}/ directory in ${kb.layout.root}; run \`cairn init\` there, or pass --root DIR pointing at a project that has one`);
  }
}
