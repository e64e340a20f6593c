/**
 * Issue 8, "What escapes the repository": a committed symlink made cairn write outside the
 * repository, exit 0, no warning, 7 of 7 ways. Each way is reproduced here with a real link; the
 * file outside must stay byte-identical and the command must refuse, naming the link and its target.
 */
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const NO_MODEL = JSON.stringify({ embedder: { provider: "none" } });
const LEDGER_FILE = `${new Date().toISOString().slice(0, 7)}.jsonl`;

async function project(files: Record<string, string> = {}): Promise<string> {
  return testdir({ ...SOURCE_FILES, "cairn.config.json": NO_MODEL, "knowledge/ctx.md": entryText(), "knowledge/archive/.gitkeep": "", "knowledge/.ledger/.gitkeep": "", ...files });
}

/** A directory outside the repository holding a user's file we must never touch. */
async function outside(): Promise<{ dir: string; file: string; before: string }> {
  const before = "# the user's own file\nexport PATH=$PATH\n";
  const dir = await testdir({ bashrc: before, "keep/unrelated.txt": "precious" });
  return { dir, file: path.join(dir, "bashrc"), before };
}

const refusal = (link: string, target: string) => ({ code: "UNSAFE_PATH", message: expect.stringContaining(`${link} is a symbolic link to ${target}`) });

describe("nothing is read or written through a link that leaves the repository", () => {
  it("ledger: inject refuses to append to knowledge/.ledger/<month>.jsonl -> ~/.bashrc (and says why, exit 0)", async () => {
    const root = await project();
    const out = await outside();
    await symlink(out.file, path.join(root, "knowledge/.ledger", LEDGER_FILE));
    const r = await cairn(["--root", root, "inject", "--run", "r1", "--agent", "security", "--keywords", "context,cancellation"]);
    expect(r.code).toBe(0); // inject never blocks a review…
    expect(r.stdout).toBe(""); // …but hands out nothing it cannot record
    expect(r.stderr).toContain(`knowledge/.ledger/${LEDGER_FILE} is a symbolic link to ${out.file}`);
    expect(await readFile(out.file, "utf8")).toBe(out.before);
  });

  it("ledger: reading or appending through a ledger directory that links outside is refused", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    const out = await outside();
    await writeFile(path.join(out.dir, "2026-01.jsonl"), "secret line\n");
    await symlink(out.dir, path.join(root, "knowledge/.ledger"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    await expect(kb.status()).rejects.toMatchObject(refusal("knowledge/.ledger", out.dir));
    await expect(kb.ledger.append([{ type: "retracted", entry: "x" }])).rejects.toMatchObject(refusal("knowledge/.ledger", out.dir));
    expect((await readdir(out.dir)).sort()).toEqual(["2026-01.jsonl", "bashrc", "keep"]);
    expect(await readFile(path.join(out.dir, "2026-01.jsonl"), "utf8")).toBe("secret line\n");
  });

  it(".gitignore and .gitattributes: init refuses to append through links (exit 2) and changes nothing outside", async () => {
    const out = await outside();
    const root = await testdir();
    await symlink(out.file, path.join(root, ".gitignore"));
    const r = await cairn(["init"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`.gitignore is a symbolic link to ${out.file}`);
    expect(await readFile(out.file, "utf8")).toBe(out.before);

    const root2 = await testdir();
    await symlink(out.file, path.join(root2, ".gitattributes"));
    await expect((await openKnowledgeBase({ root: root2 })).init()).rejects.toMatchObject(refusal(".gitattributes", out.file));
    expect(await readFile(out.file, "utf8")).toBe(out.before);
  });

  it(".cairn: index refuses to write the index there or delete anything in the target (exit 2)", async () => {
    const root = await project();
    const out = await outside();
    await mkdir(path.join(out.dir, "gen-unrelated"));
    await writeFile(path.join(out.dir, "gen-unrelated/data"), "not cairn's");
    await symlink(out.dir, path.join(root, ".cairn"));
    const r = await cairn(["--root", root, "index"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`.cairn is a symbolic link to ${out.dir}`);
    expect((await readdir(out.dir)).sort()).toEqual(["bashrc", "gen-unrelated", "keep"]);
    expect(await readFile(path.join(out.dir, "gen-unrelated/data"), "utf8")).toBe("not cairn's");
  });

  it(".cairn: a link inside .cairn/ (a committed generation) is refused too", async () => {
    const root = await project();
    const out = await outside();
    await mkdir(path.join(root, ".cairn"));
    await symlink(out.dir, path.join(root, ".cairn/gen-old"));
    await expect(openKnowledgeBase({ root, embedder: null })).rejects.toMatchObject(refusal(".cairn/gen-old", out.dir));
    expect((await readdir(out.dir)).sort()).toEqual(["bashrc", "keep"]);
  });

  it.each([
    [".cairn", "docs"],
    [".cairn/records", "docs"],
    [".cairn", ".git"],
  ])(".cairn: a link that stays inside the repository (%s -> %s, committed by a pull request) is refused before anything is written or deleted", async (link, target) => {
    const root = await project({ "docs/records/audit-q3.txt": "the team's audit notes", "docs/keep.md": "# docs", ".git/HEAD": "ref: refs/heads/main\n" });
    if (link !== ".cairn") await mkdir(path.join(root, ".cairn"));
    await symlink(path.join(root, target), path.join(root, link));
    const before = (await readdir(path.join(root, target), { recursive: true })).sort();
    for (const args of [["index"], ["status"], ["inject", "--run", "r1", "--agent", "security", "--keywords", "context"]]) {
      const r = await cairn(["--root", root, ...args], { env: { CAIRN_USE_WATCH: "0" } });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(`${link} is a symbolic link to ${path.join(root, target)}, inside the repository; cairn writes and deletes its derived files in .cairn/, so it must hold no links`);
    }
    expect((await readdir(path.join(root, target), { recursive: true })).sort()).toEqual(before);
    expect(await readFile(path.join(root, "docs/records/audit-q3.txt"), "utf8")).toBe("the team's audit notes");
  });

  it(".cairn: the index deletes only the files it named in records/ and segments/, never another file there", async () => {
    const root = await project();
    expect((await cairn(["--root", root, "index"])).code).toBe(0);
    await writeFile(path.join(root, ".cairn/records/notes.txt"), "someone's notes");
    await writeFile(path.join(root, "knowledge/ctx.md"), entryText({ finding: "Edited: a finding about cancelled contexts after an upstream call." }));
    expect((await cairn(["--root", root, "index"])).code).toBe(0);
    expect(await readFile(path.join(root, ".cairn/records/notes.txt"), "utf8")).toBe("someone's notes");
    expect((await readdir(path.join(root, ".cairn/records"))).filter((n) => n.startsWith("records-gen-"))).toHaveLength(1);
  });

  it("entries and archive: a knowledge/ or archive/ link leaving the root is refused before any move", async () => {
    const out = await outside();
    const root = await testdir({ ...SOURCE_FILES, "real/ctx.md": entryText() });
    await symlink(out.dir, path.join(root, "knowledge"));
    await expect((await openKnowledgeBase({ root, embedder: null })).status()).rejects.toMatchObject(refusal("knowledge", out.dir));

    const root2 = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    await symlink(out.dir, path.join(root2, "knowledge/archive"));
    const kb = await openKnowledgeBase({ root: root2, embedder: null });
    await expect(kb.archive("ctx", "test")).rejects.toMatchObject(refusal("knowledge/archive", out.dir));
    expect(await readFile(path.join(root2, "knowledge/ctx.md"), "utf8")).toBe(entryText());
    expect((await readdir(out.dir)).sort()).toEqual(["bashrc", "keep"]);
  });

  it("config: a cairn.config.json link leaving the root is refused (exit 2), never read", async () => {
    const root = await project();
    const out = await outside();
    await writeFile(path.join(out.dir, "config.json"), JSON.stringify({ knowledgeDir: "knowledge" }));
    await rm(path.join(root, "cairn.config.json"));
    await symlink(path.join(out.dir, "config.json"), path.join(root, "cairn.config.json"));
    const r = await cairn(["--root", root, "status"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cairn.config.json is a symbolic link to ${path.join(out.dir, "config.json")}`);
  });

  it("links that stay inside the repository still work", async () => {
    const root = await project({ "shared/more.md": entryText({ finding: "Shared finding about retries and backoff." }) });
    await symlink(path.join(root, "knowledge/ctx.md"), path.join(root, "knowledge/alias-elsewhere.txt"));
    const kb = await openKnowledgeBase({ root, embedder: null });
    const report = await kb.status();
    expect(report.entries.map((e) => e.id)).toEqual(["ctx"]);
    expect((await kb.archive("ctx", "test")).kind).toBe("done");
  });
});
