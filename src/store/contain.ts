/**
 * Containment: cairn never reads or writes through a symbolic link that leads outside the
 * repository root. A hostile pull request can commit `knowledge/.ledger/2026-11.jsonl -> ~/.bashrc`
 * or `.cairn -> /somewhere`; every path cairn writes (ledger, entries, archive, `.cairn/`,
 * `.gitignore`, `.gitattributes`) and every configuration file it reads goes through here first.
 *
 * A link that stays inside the root is allowed (repositories use them legitimately); a dangling
 * link is judged by where it would lead.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";

/** A symbolic link on the way to a path that leads outside the root. */
export type Escape = { /** The link (absolute). */ link: string; /** Where it leads (absolute). */ target: string };

/** True when `target` is `root` or below it (lexically: no link is followed). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

type Fs = {
  lstat(p: string): { isSymbolicLink(): boolean } | undefined;
  realpath(p: string): string | undefined;
  readlink(p: string): string;
};

/** Walk from the root down to `target`, one component at a time, resolving each link on the way. */
function walk(root: string, target: string, fs: Fs): Escape | undefined {
  const absRoot = path.resolve(root);
  const abs = path.resolve(absRoot, target);
  if (!isInside(absRoot, abs)) return { link: abs, target: abs };
  const realRoot = fs.realpath(absRoot) ?? absRoot;
  let current = absRoot;
  for (const part of path.relative(absRoot, abs).split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    const info = fs.lstat(current);
    if (!info) return undefined; // nothing further exists: nothing to follow
    if (!info.isSymbolicLink()) continue;
    const real = fs.realpath(current) ?? path.resolve(path.dirname(current), fs.readlink(current));
    if (!isInside(realRoot, real)) return { link: current, target: real };
  }
  return undefined;
}

const syncFs: Fs = {
  lstat: (p) => lstatSync(p, { throwIfNoEntry: false }),
  realpath: (p) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  },
  readlink: (p) => readlinkSync(p),
};

/** The first link on the way from `root` to `target` (inclusive) that leads outside `root`; undefined when contained. */
export function findEscapeSync(root: string, target: string): Escape | undefined {
  return walk(root, target, syncFs);
}

/** Async form of `findEscapeSync` (the walk is a handful of lstat calls on the path's components: cheap enough to do synchronously). */
export async function findEscape(root: string, target: string): Promise<Escape | undefined> {
  return findEscapeSync(root, target);
}

/** The error for an escape: names the link, where it leads, and what to do. */
export function escapeError(root: string, escape: Escape, what: string): CairnError {
  const rel = path.relative(root, escape.link).split(path.sep).join("/") || ".";
  const message =
    escape.link === escape.target
      ? `refusing to ${what}: ${escape.link} is outside the repository root ${root}`
      : `refusing to ${what}: ${rel} is a symbolic link to ${escape.target}, outside the repository root ${root}; cairn never reads or writes through a link that leaves the repository — replace the link with a regular file or directory`;
  return new CairnError("UNSAFE_PATH", message);
}

/** Throw CairnError("UNSAFE_PATH") when `target` is outside `root` or reached through a link that leaves it. */
export async function assertContained(root: string, target: string, what: string): Promise<void> {
  const escape = await findEscape(root, target);
  if (escape) throw escapeError(path.resolve(root), escape, what);
}

/** Synchronous `assertContained`. */
export function assertContainedSync(root: string, target: string, what: string): void {
  const escape = findEscapeSync(root, target);
  if (escape) throw escapeError(path.resolve(root), escape, what);
}

/**
 * The first link under `dir` (down to `depth` levels) that leads outside `root`: for directories
 * cairn reads and writes wholesale, such as `.cairn/`, where a committed link inside would redirect
 * a write or a recursive delete. `dir` itself is checked from the root as in `findEscape`.
 */
export async function findEscapeInTree(root: string, dir: string, depth = 2): Promise<Escape | undefined> {
  const first = findEscapeSync(root, dir);
  if (first) return first;
  const realRoot = syncFs.realpath(path.resolve(root)) ?? path.resolve(root);
  const visit = async (current: string, level: number): Promise<Escape | undefined> => {
    let names: import("node:fs").Dirent[];
    try {
      names = await readdir(current, { withFileTypes: true });
    } catch {
      return undefined; // missing or not a directory: nothing to follow
    }
    for (const dirent of names) {
      const abs = path.join(current, dirent.name);
      if (dirent.isSymbolicLink()) {
        const real = syncFs.realpath(abs) ?? path.resolve(current, syncFs.readlink(abs));
        if (!isInside(realRoot, real)) return { link: abs, target: real };
      } else if (dirent.isDirectory() && level < depth) {
        const found = await visit(abs, level + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(path.resolve(root, dir), 1);
}

/** Throw CairnError("UNSAFE_PATH") when `findEscapeInTree` finds a link leaving the root. */
export async function assertTreeContained(root: string, dir: string, what: string, depth = 2): Promise<void> {
  const escape = await findEscapeInTree(root, dir, depth);
  if (escape) throw escapeError(path.resolve(root), escape, what);
}
