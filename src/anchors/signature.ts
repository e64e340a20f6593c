/**
 * What an anchored source file looked like when an entry's anchored code was read from it, and the
 * one-stat check a refresh makes to notice it changed (src/anchors/code.ts builds the code).
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Anchored files larger than this are not read (code.ts). */
export const CODE_FILE_BYTES = 1024 * 1024;

/**
 * What an anchored file looked like when its code was read (taken before reading, so a write in
 * between shows as a change next time): size and mtime; size -1 when it did not exist or was not a
 * regular file. Only metadata: a path that leads out of the repository is stat-ed like any other to
 * notice a change, but the locator never reads its content. `hash` (of the text read) is kept while
 * the stat was within RACY_MS of the mtime, when a later write could leave size and mtime unchanged.
 */
export type SourceSignature = { path: string; size: number; mtimeMs: number; hash?: string | undefined };

/** A write within this many ms of a stat may share its mtime with a later write (timestamp granularity; as the catalogue). */
export const RACY_MS = 2_000;

/** Hash of a file's text as the locator reads it (lines joined by `\n`), to compare a racy signature. */
export function textHash(lines: readonly string[]): string {
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

/** The hash `textHash` gives for the file at `rel` now; undefined when it cannot be read or is too large. */
export function fileTextHash(root: string, rel: string): string | undefined {
  try {
    const abs = path.join(root, rel);
    if (statSync(abs).size > CODE_FILE_BYTES) return undefined;
    const text = readFileSync(abs, "utf8");
    return textHash(text.split(/\r?\n/).slice(0, countLines(text)));
  } catch {
    return undefined;
  }
}

/** The signature of `rel` now (one stat; see SourceSignature). */
export function signatureOf(root: string, rel: string): SourceSignature {
  const info = statSync(path.join(root, rel), { throwIfNoEntry: false });
  // Every signature has the same shape (hash set later or not): thousands are compared in every refresh.
  return { path: rel, size: info?.isFile() ? info.size : -1, mtimeMs: info?.mtimeMs ?? 0, hash: undefined };
}

/** Lines as an editor shows them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}
