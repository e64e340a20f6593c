/** The only module that changes entry files: surgical frontmatter edits, atomic writes, no-clobber moves. */
import { mkdir, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { editFrontmatter, type FrontmatterEdit } from "../entry/edit.js";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";

/** Apply frontmatter edits to one file in place; returns whether the file changed. Other bytes stay identical. */
export async function editEntryFile(abs: string, edits: FrontmatterEdit[]): Promise<boolean> {
  const text = await readText(abs);
  const result = editFrontmatter(text, edits);
  if (!result.ok) throw new CairnError("INVALID", `Cannot edit ${abs}: ${result.reason}. The file was not changed.`);
  if (!result.changed) return false;
  await writeFileAtomic(abs, result.text);
  return true;
}

/**
 * Move an entry to `targetDir` keeping its file name and content, applying `edits` on the way.
 * Never overwrites: the target is created exclusively, then the source is removed.
 */
export async function moveEntryFile(abs: string, targetDir: string, edits: FrontmatterEdit[]): Promise<string> {
  const target = path.join(targetDir, path.basename(abs));
  const text = await readText(abs);
  const result = editFrontmatter(text, edits);
  if (!result.ok) throw new CairnError("INVALID", `Cannot edit ${abs}: ${result.reason}. The file was not moved.`);
  await mkdir(targetDir, { recursive: true });
  await writeFileAtomic(target, result.text, { exclusive: true });
  await unlink(abs);
  return target;
}

/** Create a new file; refuses to overwrite an existing one. */
export async function createEntryFile(abs: string, text: string): Promise<void> {
  await writeFileAtomic(abs, text, { exclusive: true });
}

async function readText(abs: string): Promise<string> {
  try {
    // Buffer keeps a leading BOM as U+FEFF so the edit can preserve it byte for byte.
    return (await readFile(abs)).toString("utf8");
  } catch (cause) {
    throw new CairnError("IO", `Cannot read ${abs}: ${(cause as Error).message}`, { cause });
  }
}
