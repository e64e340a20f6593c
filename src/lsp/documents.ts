/**
 * Where an editor buffer belongs. Only markdown files directly in the knowledge directory or its
 * archive are entries; every other buffer (a README, a file outside the repository, an untitled
 * buffer) is left alone. A buffer reached through a symbolic link that leaves the repository — or
 * the knowledge directory, as for `check` — is an entry location cairn must not read through: it
 * gets one `symlink-outside` problem and nothing else (no anchor resolution, no hover, no jumps). An entry file that is
 * a link staying inside gets one `entry-symlink` problem the same way (an entry must be a regular file).
 * Classifying reads only metadata (lstat / realpath), never a file's bytes.
 */
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import { findEscapeSync } from "../store/contain.js";
import { entryFileFor, isEntryFileName, isInside, type EntryFile } from "../store/files.js";
import type { Layout } from "../store/layout.js";

export type Place =
  /** An entry file of this knowledge base. */
  | { kind: "entry"; file: EntryFile }
  /** An entry location reached through a link leaving the repository or the knowledge directory, or itself a link. */
  | { kind: "escape"; file: EntryFile; problem: Diagnostic }
  /** Not an entry of this knowledge base (other markdown, outside the root, not a file: URI). */
  | { kind: "other"; reason: string };

/**
 * Where the buffer `uri` belongs. Never throws: a URI no file system call accepts (a name too long, a loop of links)
 * is `other`, with the reason; it stopped every buffer's diagnostics when a pass over all of them met it.
 */
export function classify(layout: Layout, uri: string): Place {
  const abs = uriToPath(uri);
  if (abs === undefined) return { kind: "other", reason: `not a file: URI naming a path (${uri.slice(0, 80)})` };
  try {
    return classifyPath(layout, abs);
  } catch (error) {
    return { kind: "other", reason: `${abs.slice(0, 200)} cannot be looked at (${(error as Error).message.slice(0, 200)})` };
  }
}

function classifyPath(layout: Layout, abs: string): Place {
  const local = underRoot(layout, abs);
  if (local === undefined) return { kind: "other", reason: `${abs} is outside the repository root ${layout.root}` };
  const file = entryFileFor(layout, local);
  if (!file || !isEntryFileName(path.basename(local))) return { kind: "other", reason: `${file?.rel ?? local} is not an entry file` };
  const left = findEscapeSync(layout.root, local);
  const escape = left ? { ...left, outOf: "the repository" } : linkOutOf(layout.knowledge, local);
  if (escape) {
    const message = `symbolic link ${escape.link === local ? "" : `${path.relative(layout.root, escape.link).split(path.sep).join("/")} `}points outside ${escape.outOf} (${escape.target}); cairn never reads through it — entries must be regular files inside the knowledge directory`;
    return { kind: "escape", file, problem: diagnostic(file.rel, "symlink-outside", "error", message) };
  }
  // A link staying inside is not read through either (`readEntryFile` says `entry-symlink`): the buffer is the target's text.
  if (lstatSync(local, { throwIfNoEntry: false })?.isSymbolicLink()) {
    const message = `is a symbolic link; expected a regular file: git stores only the link, so no diff of the entry shows the text a prompt would get — replace the link with the file itself`;
    return { kind: "escape", file, problem: diagnostic(file.rel, "entry-symlink", "error", message) };
  }
  return { kind: "entry", file };
}

/** The path of a `file:` URI; undefined for any other URI, and for one no path can hold (`%00`: no file system call takes it). */
export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    const abs = path.resolve(fileURLToPath(uri));
    return abs.includes("\0") ? undefined : abs;
  } catch {
    return undefined;
  }
}

export function pathToUri(abs: string): string {
  return pathToFileURL(abs).href;
}

/** `abs` as a path under `layout.root`: editors may send the real path of a root reached through a link (`/private/tmp` for `/tmp`). */
function underRoot(layout: Layout, abs: string): string | undefined {
  if (isInside(layout.root, abs)) return abs;
  const real = realOrUndefined(layout.root);
  if (real !== undefined && real !== layout.root && isInside(real, abs)) return path.join(layout.root, path.relative(real, abs));
  return undefined;
}

/** The entry file itself a link whose target leaves the knowledge directory (what `readEntryFile` refuses). */
function linkOutOf(knowledge: string, abs: string): { link: string; target: string; outOf: string } | undefined {
  const info = lstatSync(abs, { throwIfNoEntry: false });
  if (!info?.isSymbolicLink()) return undefined;
  const target = realOrUndefined(abs);
  const base = realOrUndefined(knowledge) ?? knowledge;
  return target !== undefined && isInside(base, target) ? undefined : { link: abs, target: target ?? "dangling", outOf: "the knowledge directory" };
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
