/**
 * The knowledge directory must exist before cairn reads or writes entries: a wrong `--root` or
 * `knowledgeDir` is an error that says what to do, never a silently empty knowledge base. The
 * archive may be missing (nothing archived yet) but, like the knowledge dir, must not be a file.
 */
import { stat } from "node:fs/promises";
import { dirname as pathDirname } from "node:path";
import { CairnError } from "../errors.js";
import { assertContained } from "./contain.js";
import { relativePath, type Layout } from "./layout.js";

export type DirState = "directory" | "missing" | "not-a-directory";

/** Whether `dir` is a directory, missing, or something else (a file, or below a file). */
export async function dirState(dir: string): Promise<DirState> {
  try {
    return (await stat(dir)).isDirectory() ? "directory" : "not-a-directory";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "missing";
    if (code === "ENOTDIR") return "not-a-directory";
    throw new CairnError("IO", `cannot read ${dir}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Throw CairnError USAGE when the project root is a file (or below one): `--root path/to/file` would otherwise fail
 * deep inside with ENOTDIR. A missing root is said later, with the knowledge directory (knowledgeDirProblem).
 */
export async function requireRootNotFile(root: string): Promise<void> {
  if ((await dirState(root)) !== "not-a-directory") return;
  throw new CairnError("USAGE", `the project root ${root} is not a directory; pass --root DIR with the directory that holds knowledge/ or cairn.config.json (e.g. --root ${pathDirname(root)}), not a file`);
}

/** The message for a knowledge directory that is missing or not a directory; undefined when it is fine. */
export async function knowledgeDirProblem(layout: Layout): Promise<string | undefined> {
  await assertContained(layout.root, layout.knowledge, "read the knowledge directory");
  const rel = relativePath(layout, layout.knowledge);
  const state = await dirState(layout.knowledge);
  if (state === "missing" && (await dirState(layout.root)) === "missing") {
    return `the project root ${layout.root} does not exist; pass --root DIR with an existing directory (or run cairn from inside the project)`;
  }
  if (state === "missing") {
    return `no knowledge directory: ${rel}/ does not exist in ${layout.root}; run \`cairn init\` there to set cairn up, pass --root DIR to use a project that has one, or set "knowledgeDir" in cairn.config.json if the entries live elsewhere`;
  }
  if (state === "not-a-directory") {
    return `${rel} in ${layout.root} is not a directory; cairn keeps entries in ${rel}/ — move that file away, then run \`cairn init\``;
  }
  return undefined;
}

/** Throw CairnError("USAGE") when the knowledge directory is missing or not a directory (see `knowledgeDirProblem`). */
export async function requireKnowledgeDir(layout: Layout): Promise<void> {
  const problem = await knowledgeDirProblem(layout);
  if (problem) throw new CairnError("USAGE", problem);
}

/** Throw CairnError("USAGE") when the archive exists but is not a directory. */
export async function requireArchiveDir(layout: Layout): Promise<void> {
  await assertContained(layout.root, layout.archive, "read the archive");
  if ((await dirState(layout.archive)) === "not-a-directory") {
    const rel = relativePath(layout, layout.archive);
    throw new CairnError("USAGE", `${rel} is not a directory; archived entries live in ${rel}/ — rename that file (e.g. to ${rel}.bak), then run \`cairn init\``);
  }
}
