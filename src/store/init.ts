/**
 * `cairn init`: create the knowledge layout and git settings; idempotent. Works in the root it is
 * given (the CLI passes the working directory or --root), and refuses to create or write anything
 * through a symbolic link that leaves that root (a committed `.gitignore -> ~/.bashrc` would
 * otherwise get `.cairn/` appended).
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { CairnError } from "../errors.js";
import { writeFileAtomic } from "./atomic.js";
import { assertContained } from "./contain.js";
import { relativePath, type Layout } from "./layout.js";
import { dirState } from "./require.js";
import type { InitResult } from "../types/entries.js";

export type { InitResult } from "../types/entries.js";

export async function initKnowledge(layout: Layout): Promise<InitResult> {
  const result: InitResult = { created: [], updated: [], unchanged: [] };
  for (const dir of [layout.knowledge, layout.archive, layout.ledger]) {
    const rel = relativePath(layout, dir) + "/";
    await assertContained(layout.root, dir, `create ${rel}`);
    const state = await dirState(dir);
    if (state === "not-a-directory") {
      throw new CairnError("USAGE", `${rel.slice(0, -1)} in ${layout.root} is a file, not a directory; move it away (e.g. to ${rel.slice(0, -1)}.bak) and run \`cairn init\` again`);
    }
    if (state === "directory") result.unchanged.push(rel);
    else {
      await mkdir(dir, { recursive: true });
      result.created.push(rel);
    }
    // Git does not track empty directories; a .gitkeep keeps archive/ and .ledger/ in clones.
    if (dir !== layout.knowledge) await ensureLines(path.join(dir, ".gitkeep"), [], result, layout);
  }
  const ledgerGlob = `${relativePath(layout, layout.ledger)}/*.jsonl merge=union`;
  await ensureLines(path.join(layout.root, ".gitattributes"), [ledgerGlob], result, layout);
  // knowledge/.pending/ holds the log of a change in progress (src/lifecycle/change.ts): local, never committed.
  await ensureLines(path.join(layout.root, ".gitignore"), [".cairn/", `${relativePath(layout, layout.knowledge)}/.pending/`], result, layout);
  return result;
}

/** Append the missing lines to a text file, keeping its existing content and line endings. */
async function ensureLines(file: string, lines: string[], result: InitResult, layout: Layout): Promise<void> {
  const rel = relativePath(layout, file);
  await assertContained(layout.root, file, `update ${rel}`);
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new CairnError("IO", `cannot read ${rel}: ${(error as Error).message}; expected a text file (or none)`, { cause: error });
    }
  }
  if (text === undefined) {
    await writeFileAtomic(file, lines.map((l) => l + "\n").join(""));
    result.created.push(rel);
    return;
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const present = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const missing = lines.filter((l) => !present.has(l) && !(l === ".cairn/" && present.has(".cairn")));
  if (!missing.length) {
    result.unchanged.push(rel);
    return;
  }
  const prefix = text.length && !text.endsWith("\n") ? eol : "";
  await writeFileAtomic(file, text + prefix + missing.map((l) => l + eol).join(""));
  result.updated.push(rel);
}
