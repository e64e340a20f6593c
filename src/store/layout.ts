/** Where things live under a project root. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Layout } from "../types/open.js";

export type { Layout } from "../types/open.js";
export { findRoot, gitTop } from "./root.js";

export function layoutFor(root: string, config: Pick<CairnConfig, "knowledgeDir">): Layout {
  const abs = path.resolve(root);
  const knowledge = path.join(abs, config.knowledgeDir);
  return {
    root: abs,
    knowledge,
    archive: path.join(knowledge, "archive"),
    ledger: path.join(knowledge, ".ledger"),
    cache: path.join(abs, ".cairn"),
  };
}

/** Repo-relative path with forward slashes. */
export function relativePath(layout: Layout, file: string): string {
  return path.relative(layout.root, file).split(path.sep).join("/");
}
