/**
 * cairn.config.json at one revision, read the way `loadConfig` reads it from a checkout: a symbolic link is followed
 * (inside that revision's tree, since git stores only the link's target text), a link leaving the project root is
 * refused, a missing file (or a dangling link) means the defaults. Comparing the link blobs instead hid every later
 * edit of the file a link points to.
 */
import { lstat, readFile, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { CONFIG_FILE } from "../config.js";
import { findEscape } from "../store/contain.js";
import type { Layout } from "../store/layout.js";
import { entryAt, readBlobs, type GitRepo, type TreeEntry } from "./git.js";

/** What the loader finds at cairn.config.json at one revision. */
export type ConfigSource =
  /** No file (or a link to nothing): the defaults. */
  | { kind: "absent"; link?: string }
  /** A regular file's text; `link` is where cairn.config.json points when it is a link (root-relative). */
  | { kind: "file"; text: string; link?: string }
  /** Something the loader refuses (a link leaving the root, a loop, a directory): every command fails with it. */
  | { kind: "refused"; reason: string; link?: string };

/** Links followed before giving up, as the kernel's ELOOP limit. */
const MAX_HOPS = 40;


/** cairn.config.json in commit `rev`, following links inside the tree as the file system would. */
export async function configAtCommit(repo: GitRepo, rev: string): Promise<ConfigSource> {
  const start = `${repo.prefix}${CONFIG_FILE}`;
  const direct = await entryAt(repo, rev, start);
  // The usual case: a regular file (git lists no path below a link, so no directory on the way is one).
  if (direct && direct.mode !== "120000") return fromEntry(repo, direct);
  const shown = (topPath: string) => (topPath.startsWith(repo.prefix) ? topPath.slice(repo.prefix.length) : `/${topPath}`);
  let todo = start.split("/");
  const done: string[] = [];
  let hops = 0;
  let linked = false;
  // For a refused link: its target as written, since it resolves to nothing in the tree.
  let written: { link?: string } = {};
  while (todo.length) {
    const part = todo.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (!done.length) return { kind: "refused", reason: "it is a symbolic link leading outside the repository", ...written };
      done.pop();
      continue;
    }
    const here = [...done, part].join("/");
    const entry = await entryAt(repo, rev, here);
    if (!entry) return { kind: "absent", ...(linked ? { link: shown(path.posix.normalize([here, ...todo].join("/"))) } : {}) };
    if (entry.mode !== "120000") {
      done.push(part);
      continue;
    }
    if (++hops > MAX_HOPS) return { kind: "refused", reason: "its symbolic links form a loop", ...written };
    const target = (await readBlobs(repo, [entry.oid])).get(entry.oid)?.toString("utf8") ?? "";
    if (target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target)) {
      return { kind: "refused", reason: `it is a symbolic link to ${JSON.stringify(target)}, outside the repository`, link: target };
    }
    todo = [...target.split("/"), ...todo];
    linked = true;
    written = { link: target };
  }
  const final = done.join("/");
  if (!final) return { kind: "refused", reason: "it is a symbolic link to a directory", ...written };
  // loadConfig refuses a config reached through a link that leaves the project root (assertContained).
  if (repo.prefix && !final.startsWith(repo.prefix)) {
    return { kind: "refused", reason: `it is a symbolic link to ${final} (from the repository's top level), outside the project root`, link: shown(final) };
  }
  const entry = await entryAt(repo, rev, final);
  if (!entry) return { kind: "absent", link: shown(final) };
  return fromEntry(repo, entry, shown(final));
}

async function fromEntry(repo: GitRepo, entry: TreeEntry, link?: string): Promise<ConfigSource> {
  const linked = link !== undefined ? { link } : {};
  if (entry.type !== "blob" || (entry.mode !== "100644" && entry.mode !== "100755")) return { kind: "refused", reason: "it is not a regular file", ...linked };
  const blob = (await readBlobs(repo, [entry.oid])).get(entry.oid);
  if (blob === undefined) return { kind: "refused", reason: "git cannot read its blob", ...linked };
  return { kind: "file", text: blob.toString("utf8"), ...linked };
}

/** cairn.config.json in the working tree, as `loadConfig` reads it. */
export async function configInWorkTree(layout: Layout): Promise<ConfigSource> {
  const file = path.join(layout.root, CONFIG_FILE);
  const info = await lstat(file).catch(() => undefined);
  // A dangling link is named by its target text (the loader then uses the defaults).
  const real = info?.isSymbolicLink() ? await realpath(file).catch(async () => path.resolve(layout.root, await readlink(file))) : undefined;
  const link = real !== undefined ? { link: path.relative(layout.root, real).split(path.sep).join("/") } : {};
  const escape = await findEscape(layout.root, file);
  if (escape) return { kind: "refused", reason: `it is reached through a symbolic link to ${escape.target}, outside the project root`, ...link };
  try {
    return { kind: "file", text: await readFile(file, "utf8"), ...link };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent", ...link };
    return { kind: "refused", reason: code === "EISDIR" ? "it is not a regular file" : `it cannot be read: ${(error as Error).message}`, ...link };
  }
}
