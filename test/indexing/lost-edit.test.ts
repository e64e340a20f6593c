/**
 * Issue 12: "In ~80 watched edits, one was not searchable in the watcher process after 60 s although
 * a new process found it." Root cause: between a catalogue-only refresh (the watcher, `status`) and
 * the first search, a changed entry's lexical document was owed as a debt; the first search paid it
 * by reading the entry file again, and when that read failed — the file renamed away mid-save by an
 * editor (vim's backup rename), or replaced meanwhile — the debt was dropped anyway. The catalogue
 * already held the new record, and later refreshes compared records with records, not with what the
 * lexical index held: an unchanged save left the process with the old text for good, while a new
 * process (paying the saved debt from a whole file) found the new one. Now a document that cannot be
 * built stays owed until the next refresh, and what is owed is judged by the hash of the document
 * the lexical index actually holds. The stress test below failed on the code before this change in
 * every run (its second round), on the vim-style unchanged save racing the process's first search.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const finding = (word: string) => entryText({ finding: `Handlers drop the ${word} marker after the upstream call.` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A word per number, letters only (the tokenizer keeps it whole); all of one length, so edits keep the file size. */
const word = (n: number): string => Array.from({ length: 6 }, (_, i) => String.fromCharCode(97 + (Math.floor(n / 26 ** i) % 26))).join("");

describe("an edit is never lost", () => {
  it("a document that cannot be built when its debt is paid stays owed (the file was mid-save)", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": finding("oldmarker") });
    await (await openKnowledgeBase({ root, embedder: null })).index();
    const kb = await openKnowledgeBase({ root, embedder: null, refreshIntervalMs: 60_000 });
    await writeFile(path.join(root, "knowledge/ctx.md"), finding("newmarker"));
    await kb.status(); // a catalogue-only refresh: the new text is owed to the lexical index
    // An editor's save in progress (vim: the file is renamed to a backup, then rewritten) while the first search pays.
    await rename(path.join(root, "knowledge/ctx.md"), path.join(root, "knowledge/ctx.md~"));
    await kb.search("oldmarker");
    await rename(path.join(root, "knowledge/ctx.md~"), path.join(root, "knowledge/ctx.md")); // same bytes, same mtime
    kb.invalidate();
    expect((await kb.search("newmarker")).results.map((r) => r.id)).toEqual(["ctx"]);
    expect((await kb.search("oldmarker")).results).toEqual([]);
  });

  it("stress: quick edits, renames and editors' saves while searching in the watcher's process", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES };
    const current = new Map<string, string>();
    let n = 0;
    for (let i = 0; i < 12; i++) {
      const w = word(n++);
      files[`knowledge/e${i}.md`] = finding(w);
      current.set(`e${i}.md`, w);
    }
    const root = await testdir(files);
    await mkdir(path.join(root, "knowledge/archive"), { recursive: true });
    await (await openKnowledgeBase({ root, embedder: null })).index();
    const at = (name: string) => path.join(root, "knowledge", name);
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    /** One edit of a random entry, the way editors and tools write files; resolves when the file is whole again. */
    const edit = async (k: number): Promise<void> => {
      const names = [...current.keys()];
      const name = names[Math.floor(rand() * names.length)]!;
      const w = word(n++);
      const text = finding(w);
      switch (Math.floor(rand() * 6)) {
        case 0: // in place, same size
          await writeFile(at(name), text);
          break;
        case 1: // atomic save: a temp file renamed over the entry
          await writeFile(`${at(name)}.tmp`, text);
          await rename(`${at(name)}.tmp`, at(name));
          break;
        case 2: // vim: rename to a backup, write anew (the file is missing a moment), drop the backup
          await rename(at(name), `${at(name)}~`);
          await sleep(15);
          await writeFile(at(name), text);
          await rm(`${at(name)}~`);
          break;
        case 3: // two writes in a row, the first one lost to the second
          await writeFile(at(name), finding(word(n++)));
          await writeFile(at(name), text);
          break;
        case 4: {
          // renamed: a new id with the old text
          const to = `r${k}.md`;
          await rename(at(name), at(to));
          current.set(to, current.get(name)!);
          current.delete(name);
          return;
        }
        default: // archived and restored with new text
          await rename(at(name), path.join(root, "knowledge/archive", name));
          await writeFile(path.join(root, "knowledge/archive", name), text);
          await rename(path.join(root, "knowledge/archive", name), at(name));
      }
      current.set(name, w);
    };
    const missing = async (kb: Awaited<ReturnType<typeof openKnowledgeBase>>) => {
      const out: string[] = [];
      for (const [name, w] of current) {
        const hits = (await kb.search(w)).results.map((r) => r.path);
        if (!hits.includes(`knowledge/${name}`)) out.push(`${name} (${w})`);
      }
      return out;
    };
    /** An editor saving a buffer it did not change (vim: rename to a backup, write the same text anew, drop the backup). */
    const resave = async (name: string): Promise<void> => {
      const text = await readFile(at(name), "utf8");
      await rename(at(name), `${at(name)}~`);
      await sleep(10);
      await writeFile(at(name), text);
      await rm(`${at(name)}~`);
    };
    // Rounds: a process starts watching, entries are edited, and its first search lands while they are saved again.
    for (let round = 0; round < 6; round++) {
      const kb = await openKnowledgeBase({ root, embedder: null });
      const handle = await kb.watch({ debounceMs: 20 });
      await handle.ready;
      for (let k = 0; k < 14; k++) {
        await edit(round * 100 + k);
        if (rand() < 0.3) await sleep(Math.floor(rand() * 40));
      }
      await sleep(80);
      // Every entry saved again, unchanged, while the process's first searches run.
      const saving = Promise.all([...current.keys()].map((name) => resave(name)));
      await sleep(4);
      let searching = true;
      const searcher = (async () => {
        for (let i = 0; searching; i++) {
          if (i % 4 === 3) await kb.status();
          else await kb.search("handlers marker upstream");
          await sleep(2);
        }
      })();
      await saving;
      // Settled: every file's last text is searchable in this process.
      let lost = await missing(kb);
      for (let tries = 0; lost.length && tries < 30; tries++) {
        await sleep(100);
        lost = await missing(kb);
      }
      searching = false;
      await searcher;
      await handle.close();
      expect({ round, lost }).toEqual({ round, lost: [] });
    }
    const onDisk = (await readdir(path.join(root, "knowledge"))).filter((f) => f.endsWith(".md")).sort();
    expect(onDisk).toEqual([...current.keys()].sort());
    expect(await readFile(at(onDisk[0]!), "utf8")).toContain(current.get(onDisk[0]!)!);
  });
});
