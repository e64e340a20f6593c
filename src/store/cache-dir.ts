/**
 * `.cairn/` must be a real directory holding no links. cairn writes its derived files there and deletes the ones an
 * index no longer names, so a link committed by a pull request (`.cairn -> docs`, `.cairn/records -> ../src`) — one
 * that stays inside the repository, which containment allows — would have it delete tracked files, or take git's own
 * lock files for its locks (`.cairn -> .git`). Refused before any command uses the directory.
 */
import { lstat, readdir, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import { escapeError, isInside } from "./contain.js";
import { relativePath, type Layout } from "./layout.js";

/** Throws UNSAFE_PATH when `.cairn/` or anything directly in it is a symbolic link. Nothing there yet is fine. */
export async function assertPlainCacheDir(layout: Layout): Promise<void> {
  const info = await lstat(layout.cache).catch(() => undefined);
  if (!info) return;
  if (info.isSymbolicLink()) throw await linkError(layout, layout.cache);
  if (!info.isDirectory()) return; // writing into it fails with its own clear error
  for (const entry of await readdir(layout.cache, { withFileTypes: true }).catch(() => [])) {
    if (entry.isSymbolicLink()) throw await linkError(layout, path.join(layout.cache, entry.name));
  }
}

async function linkError(layout: Layout, link: string): Promise<CairnError> {
  const target = await realpath(link).catch(async () => path.resolve(path.dirname(link), await readlink(link).catch(() => ".")));
  const cache = relativePath(layout, layout.cache);
  if (!isInside(layout.root, target)) return escapeError(layout.root, { link, target }, `keep derived files in ${cache}/`);
  return new CairnError(
    "UNSAFE_PATH",
    `refusing to keep derived files in ${cache}/: ${relativePath(layout, link)} is a symbolic link to ${target}, inside the repository; cairn writes and deletes its derived files in ${cache}/, so it must hold no links — remove the link (everything in ${cache}/ is rebuilt from the entry files)`,
  );
}
