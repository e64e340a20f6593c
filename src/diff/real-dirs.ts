/**
 * Where git sees the knowledge directory. The layout's directories (the knowledge dir, its archive, its ledger) may be
 * reached through symbolic links that stay inside the repository (`knowledgeDir: "kb"` with `kb -> knowledge`, or
 * `knowledge -> docs/kb`); git stores the link and reports the files under the real directory. Diagnostics and the
 * diff name files by the layout's paths, so git's paths are mapped to those.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { isInside } from "../store/files.js";
import { relativePath, type Layout } from "../store/layout.js";
import type { GitRepo } from "./git.js";

/** One layout directory: where git sees it and how the layout names it. */
export type RealDir = {
  /** Real location relative to the git top level, forward slashes, no trailing slash ("" for the top level itself). */
  top: string;
  /** The layout's path relative to the project root, forward slashes, no trailing slash ("" for the root). */
  shown: string;
};

/** The knowledge dir, its archive and its ledger as git sees them, most specific (longest real path) first. */
export type RealDirs = {
  dirs: RealDir[];
  /** The knowledge dir's entry. */
  knowledge: RealDir;
  /** The archive's entry. */
  archive: RealDir;
  /** The ledger dir's entry. */
  ledger: RealDir;
};

/**
 * Resolve the layout's directories to their real locations inside the work tree. A directory that does not exist, or
 * whose real location leaves the work tree (refused by every command that reads it), keeps its literal path.
 */
export async function realDirs(repo: GitRepo, layout: Layout): Promise<RealDirs> {
  const top = await realpath(repo.top).catch(() => repo.top);
  const locate = async (dir: string): Promise<RealDir> => {
    const shown = relativePath(layout, dir).replace(/\/+$/, "");
    const literal = `${repo.prefix}${shown}`.replace(/\/+$/, "");
    // A directory missing here (an archive nothing was archived to yet) is where its parent really is.
    const real = await realpath(dir).catch(async () => {
      const parent = await realpath(path.dirname(dir)).catch(() => undefined);
      return parent === undefined ? undefined : path.join(parent, path.basename(dir));
    });
    if (real === undefined || !isInside(top, real)) return { top: literal, shown };
    return { top: path.relative(top, real).split(path.sep).join("/"), shown };
  };
  const knowledge = await locate(layout.knowledge);
  const archive = await locate(layout.archive);
  const ledger = await locate(layout.ledger);
  const dirs = [archive, ledger, knowledge].sort((a, b) => b.top.length - a.top.length);
  return { dirs, knowledge, archive, ledger };
}

/** Git's top-relative path as the layout names it (root-relative), or undefined when it is in none of the directories. */
export function toLayoutPath(real: RealDirs, topPath: string): string | undefined {
  for (const dir of real.dirs) {
    if (topPath === dir.top) return dir.shown;
    if (dir.top !== "" && !topPath.startsWith(`${dir.top}/`)) continue;
    const rest = dir.top === "" ? topPath : topPath.slice(dir.top.length + 1);
    return dir.shown ? `${dir.shown}/${rest}` : rest;
  }
  return undefined;
}

/** Pathspecs covering the directories (nested ones dropped), for git commands; "." for the top level. */
export function pathspecs(real: RealDirs): string[] {
  const tops = [...new Set(real.dirs.map((d) => d.top))].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const t of tops) if (!kept.some((k) => k === "" || t === k || t.startsWith(`${k}/`))) kept.push(t);
  return kept.map((t) => t || ".");
}
