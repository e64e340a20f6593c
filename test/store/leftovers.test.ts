/**
 * A writer killed between creating its temp file and renaming it over the target leaves
 * `.<file>.<pid>.<12 hex>.tmp` beside it (store/atomic.ts). The next mutating command removes those of dead
 * processes — in knowledge/, the archive, knowledge/.pending/ and .cairn/ — and leaves alone a live process's
 * (it may be writing right now) and every other file.
 */
import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ["-e", ""], (error) => (error ? reject(error) : resolve(child.pid!)));
  });
}

const exists = (file: string) => access(file).then(() => true, () => false);

async function project(dead: number) {
  const leftovers = {
    dead: [`knowledge/.ctx.md.${dead}.0123456789ab.tmp`, `knowledge/archive/.old.md.${dead}.0123456789ab.tmp`, `knowledge/.pending/.ctx.json.${dead}.0123456789ab.tmp`, `.cairn/.manifest.json.${dead}.0123456789ab.tmp`],
    live: [`knowledge/.ctx.md.${process.pid}.0123456789ab.tmp`],
    other: ["knowledge/.notes.tmp", `knowledge/.ctx.md.${dead}.not-hex-at-all.tmp`, `src/.auth.ts.${dead}.0123456789ab.tmp`],
  };
  const files: Record<string, string> = { "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), ...SOURCE_FILES, "knowledge/ctx.md": entryText() };
  for (const rel of [...leftovers.dead, ...leftovers.live, ...leftovers.other]) files[rel] = "partial";
  return { root: await testdir(files), leftovers };
}

describe("temp files of killed writers", () => {
  it("the next command that writes removes a dead writer's, keeps a live one's and anything else", async () => {
    const { root, leftovers } = await project(await deadPid());
    const result = await cairn(["--root", root, "confirm", "ctx"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    for (const rel of leftovers.dead) expect(await exists(path.join(root, rel)), rel).toBe(false);
    for (const rel of [...leftovers.live, ...leftovers.other]) expect(await exists(path.join(root, rel)), rel).toBe(true);
  });

  it("a library process sweeps them once, with its first change", async () => {
    const { root, leftovers } = await project(await deadPid());
    const kb = await openKnowledgeBase({ root, embedder: null });
    await kb.confirm("ctx");
    await vi.waitFor(async () => {
      for (const rel of leftovers.dead) expect(await exists(path.join(root, rel)), rel).toBe(false);
    });
    for (const rel of [...leftovers.live, ...leftovers.other]) expect(await exists(path.join(root, rel)), rel).toBe(true);
  });
});
