/**
 * The only module that changes entry files: surgical frontmatter edits, atomic writes, no-clobber
 * moves, deletions. Every path is checked against the repository root first: nothing is written
 * through a symbolic link that leaves it. Moves that must survive `kill -9` go through
 * `applyChange` (src/store/change.ts), which uses these.
 */
import { lstat, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { editFrontmatter, type FrontmatterEdit } from "../entry/edit.js";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";
import { assertContained } from "./contain.js";
import type { Layout } from "./layout.js";

/** Apply frontmatter edits to one file in place; returns whether the file changed. Other bytes stay identical. */
export async function editEntryFile(layout: Layout, abs: string, edits: readonly FrontmatterEdit[]): Promise<boolean> {
  await assertContained(layout.root, abs, "edit an entry");
  // A person may save the file while it is edited: the edit is written only over the text it was made on, else made
  // again on what was saved (a save landing between the read and the rename was silently reverted).
  for (let attempt = 1; ; attempt++) {
    const text = await readText(abs);
    const result = editFrontmatter(text, edits);
    if (!result.ok) throw new CairnError("INVALID", `Cannot edit ${abs}: ${result.reason}. The file was not changed.`);
    if (!result.changed) return false;
    if (await writeFileAtomic(abs, result.text, { onlyIf: async () => (await readTextIfExists(abs)) === text })) return true;
    if (attempt >= EDIT_ATTEMPTS) throw new CairnError("CONFLICT", `${abs} kept changing while cairn edited it (${EDIT_ATTEMPTS} tries); it was left as it is — save it, then run the command again`);
  }
}

/** Tries of an edit whose file is saved meanwhile, each on the text then saved. */
const EDIT_ATTEMPTS = 5;

/** The text `abs` would have after `edits` (throws when the frontmatter cannot be edited); undefined when the file does not exist. */
export async function editedText(layout: Layout, abs: string, edits: readonly FrontmatterEdit[]): Promise<string | undefined> {
  await assertContained(layout.root, abs, "read an entry");
  const text = await readTextIfExists(abs);
  if (text === undefined) return undefined;
  const result = editFrontmatter(text, edits);
  if (!result.ok) throw new CairnError("INVALID", `Cannot edit ${abs}: ${result.reason}. The file was not changed.`);
  return result.text;
}

/** The text of `abs`, or undefined when it does not exist. */
export async function readEntryText(layout: Layout, abs: string): Promise<string | undefined> {
  await assertContained(layout.root, abs, "read an entry");
  return readTextIfExists(abs);
}

/** Whether an entry file exists at `abs` (without reading it). */
export async function entryExists(layout: Layout, abs: string): Promise<boolean> {
  await assertContained(layout.root, abs, "read an entry");
  try {
    await lstat(abs);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new CairnError("IO", `Cannot read ${abs}: ${(error as Error).message}`, { cause: error });
  }
}

/** Replace the whole text of an existing entry file, atomically. */
export async function writeEntryFile(layout: Layout, abs: string, text: string): Promise<void> {
  await assertContained(layout.root, abs, "write an entry");
  await writeFileAtomic(abs, text);
}

/** Create a new file; refuses to overwrite an existing one (CairnError CONFLICT). */
export async function createEntryFile(layout: Layout, abs: string, text: string): Promise<void> {
  await assertContained(layout.root, abs, "write an entry");
  await writeFileAtomic(abs, text, { exclusive: true });
}

/** Delete an entry file; false when it was already gone. */
export async function deleteEntryFile(layout: Layout, abs: string): Promise<boolean> {
  await assertContained(layout.root, abs, "delete an entry");
  try {
    await unlink(abs);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new CairnError("IO", `Cannot delete ${abs}: ${(error as Error).message}`, { cause: error });
  }
}

/** Absolute path of a repo-relative entry path. */
export function entryPath(layout: Layout, rel: string): string {
  return path.join(layout.root, rel);
}

async function readText(abs: string): Promise<string> {
  const text = await readTextIfExists(abs);
  if (text === undefined) throw new CairnError("IO", `Cannot read ${abs}: the file does not exist (it was moved or deleted meanwhile?)`);
  return text;
}

async function readTextIfExists(abs: string): Promise<string | undefined> {
  try {
    // Buffer keeps a leading BOM as U+FEFF so the edit can preserve it byte for byte.
    return (await readFile(abs)).toString("utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CairnError("IO", `Cannot read ${abs}: ${(cause as Error).message}`, { cause });
  }
}
