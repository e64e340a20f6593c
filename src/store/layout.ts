/** Where things live under a project root. */
import { existsSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILE, type CairnConfig } from "../config.js";
import type { Layout } from "../types/open.js";

export type { Layout } from "../types/open.js";

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

/**
 * The project root for every command but `init`: the nearest ancestor of `start` holding
 * `knowledge/` or `cairn.config.json`, never above the top of the git repository `start` is in
 * (a project nested in a folder that happens to hold `knowledge/` must not adopt that folder).
 * Undefined when there is none.
 */
export function findRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, CONFIG_FILE)) || existsSync(path.join(dir, "knowledge"))) return dir;
    if (existsSync(path.join(dir, ".git"))) return undefined; // the repository's top: stop here
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The top of the git repository holding `start`: the nearest ancestor with a `.git` directory or file (worktrees, submodules); undefined outside git. */
export function gitTop(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Repo-relative path with forward slashes. */
export function relativePath(layout: Layout, file: string): string {
  return path.relative(layout.root, file).split(path.sep).join("/");
}
