import { readdirSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, utimes, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { acquireIndexLock } from "../../src/indexing/lock.js";
import type { WatchEvent } from "../../src/indexing/watch.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { REPO } from "../helpers/cli.js";
import { savedIndex } from "../helpers/saved-index.js";

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition not reached in time");
}

const RANKED = { embedder: { provider: "use-lite" as const, weight: 0.2 } };

/** inotify watches this process holds (Linux): one `inotify wd:` line per watch in the fdinfo of its inotify descriptors. */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync("/proc/self/fdinfo")) {
    let info = "";
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch {
      continue; // closed meanwhile
    }
    for (const line of info.split("\n")) if (line.startsWith("inotify wd:")) watches++;
  }
  return watches;
}

describe("cairn watch", () => {
  it("follows adds, editors' atomic saves, renames, archive moves, deletions and broken files", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText({ finding: "Alpha finding about caching headers." }) });
    // Vectors are indexed only when the embedder ranks (config `embedder.weight` > 0).
    const kb = await openKnowledgeBase({ root, embedder: fakeEmbedder(), config: RANKED });
    const events: WatchEvent[] = [];
    const handle = await kb.watch({ debounceMs: 50, onEvent: (e) => events.push(e) });
    await handle.ready;
    const ids = async () => (await kb.searchIndex()).index.ids();
    expect(await ids()).toEqual(["a"]);

    await writeFile(path.join(root, "knowledge/b.md"), entryText({ finding: "Beta finding about connection pools." }));
    await waitFor(async () => (await ids()).includes("b"));

    // An editor's atomic save: write a temp file, rename it over the entry.
    await writeFile(path.join(root, "knowledge/.b.md.swp"), entryText({ finding: "Beta finding about pool exhaustion under load." }));
    await rename(path.join(root, "knowledge/.b.md.swp"), path.join(root, "knowledge/b.md"));
    await waitFor(async () => (await kb.search("exhaustion")).results[0]?.id === "b");

    await rename(path.join(root, "knowledge/b.md"), path.join(root, "knowledge/b-renamed.md"));
    await waitFor(async () => events.some((e) => e.type === "updated" && e.report.added.includes("b-renamed")));
    expect(await ids()).toEqual(["a", "b-renamed"]);
    const renamed = events.find((e) => e.type === "updated" && e.report.added.includes("b-renamed"));
    expect(renamed).toMatchObject({ report: { embedded: 0, reused: 1 } }); // same content: the cached vector is reused

    await mkdir(path.join(root, "knowledge/archive"), { recursive: true });
    await rename(path.join(root, "knowledge/a.md"), path.join(root, "knowledge/archive/a.md"));
    await waitFor(async () => (await kb.searchIndex()).index.meta("a")?.state === "archived");

    await writeFile(path.join(root, "knowledge/b-renamed.md"), "---\nprovenance: [\n---\n");
    await waitFor(async () => events.some((e) => e.type === "invalid"));
    expect(await ids()).toContain("b-renamed"); // last good version kept
    await writeFile(path.join(root, "knowledge/c.md"), entryText({ finding: "Gamma finding about retries." }));
    await waitFor(async () => events.some((e) => e.type === "updated" && e.report.added.includes("c")));
    expect(events.filter((e) => e.type === "invalid")).toHaveLength(1); // reported once, not on every refresh

    await rm(path.join(root, "knowledge/b-renamed.md"));
    await waitFor(async () => !(await ids()).includes("b-renamed"));
    await handle.close();
    // The saved index on disk matches what the watcher saw.
    const { catalogue } = await savedIndex(root);
    expect(catalogue.records.map((r) => r.id)).toEqual(["a", "c"]);
  });

  it("reports a file rewritten in place once it has settled, not the empty moment an editor's truncate left", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/b.md": entryText({ finding: "Beta finding about connection pools." }) });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const events: WatchEvent[] = [];
    const handle = await kb.watch({ debounceMs: 50, settleMs: 2_500, onEvent: (e) => events.push(e) });
    await handle.ready;
    // The editor truncates the file; a refresh reads it empty before the new text is written.
    const sawEmpty = handle.settled();
    await writeFile(path.join(root, "knowledge/b.md"), "");
    await sawEmpty;
    expect(events.filter((e) => e.type === "invalid")).toEqual([]);
    await writeFile(path.join(root, "knowledge/b.md"), "---\nprovenance: [\n---\n");
    await waitFor(async () => events.some((e) => e.type === "invalid"));
    await handle.close();
    const invalid = events.filter((e) => e.type === "invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ diagnostics: [{ file: "knowledge/b.md", line: 2 }] });
    expect(await kb.search("pools").then((r) => r.results.map((x) => x.id))).toEqual(["b"]); // the last good version meanwhile
  });

  it("reports a broken file whose mtime is in the future (it never settles) instead of holding it for good", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/b.md": entryText({ finding: "Beta finding about connection pools." }) });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const events: WatchEvent[] = [];
    const handle = await kb.watch({ debounceMs: 50, settleMs: 300, onEvent: (e) => events.push(e) });
    await handle.ready;
    const file = path.join(root, "knowledge/b.md");
    await writeFile(file, "---\nprovenance: [\n---\n");
    const tomorrow = new Date(Date.now() + 86_400_000);
    await utimes(file, tomorrow, tomorrow);
    await waitFor(async () => events.some((e) => e.type === "invalid"), 5_000);
    await handle.close();
    expect(events.filter((e) => e.type === "invalid")).toHaveLength(1);
  });

  it("watches the source files entries are anchored to: an edited function body is searchable, an awaited file too", async () => {
    const source = (word: string) => `export function handleRequest() {\n  ${word}(ctx);\n  return fetch('x');\n}\n`;
    const root = await testdir({
      "src/auth.ts": source("firstKestrelHook"),
      "src/other.ts": "export const unrelated = 1;\n",
      "knowledge/a.md": entryText({ evidence: "src/auth.ts:1-4, handleRequest() — ctx not checked." }),
      "knowledge/b.md": entryText({ finding: "Pools leak under load.", evidence: "src/later/pool.ts:1-3, acquire() — not yet written." }),
    });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const events: WatchEvent[] = [];
    const handle = await kb.watch({ debounceMs: 50, onEvent: (e) => events.push(e) });
    await handle.ready;
    const found = async (query: string) => (await kb.search(query)).results.map((r) => r.id);
    expect(await found("firstKestrelHook")).toEqual(["a"]);
    // An editor's atomic save of the anchored file.
    await writeFile(path.join(root, "src/.auth.ts.swp"), source("omegaBadgerLatch"));
    await rename(path.join(root, "src/.auth.ts.swp"), path.join(root, "src/auth.ts"));
    await waitFor(async () => (await found("omegaBadgerLatch")).includes("a"));
    expect(await found("firstKestrelHook")).toEqual([]);
    // The watcher reports it once its refresh is through (searches here see the index as soon as it is updated).
    await waitFor(async () => events.some((e) => e.type === "updated" && e.report.codeChanged.includes("a")));
    // A file an anchor points at that did not exist (nor did its directory).
    await mkdir(path.join(root, "src/later"), { recursive: true });
    await writeFile(path.join(root, "src/later/pool.ts"), "export function acquire() {\n  return borrowedLemurSlot();\n}\n");
    await waitFor(async () => (await found("borrowedLemurSlot")).includes("b"));
    // Its report comes once that refresh is through: wait for it, or on a loaded machine it lands in the window below.
    await waitFor(async () => events.some((e) => e.type === "updated" && e.report.codeChanged.includes("b")));
    // Files no entry is anchored to are not watched.
    const before = events.length;
    await writeFile(path.join(root, "src/other.ts"), "export const unrelated = 2;\n");
    await new Promise((r) => setTimeout(r, 300));
    expect(events.slice(before).filter((e) => e.type === "updated")).toEqual([]);
    await handle.close();
  });

  it.runIf(process.platform === "linux")("is ready only once every anchored source directory is watched, and sees an edit made right after", async () => {
    const source = (word: string) => `export function handleRequest() {\n  ${word}(ctx);\n  return fetch('x');\n}\n`;
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) {
      files[`src/m${i}/auth.ts`] = source(`firstOcelot${i}`);
      files[`knowledge/e${i}.md`] = entryText({ finding: `Finding number ${i}.`, evidence: `src/m${i}/auth.ts:1-4, handleRequest() — ctx not checked.` });
    }
    const root = await testdir(files);
    const kb = await openKnowledgeBase({ root, embedder: null });
    await kb.index();
    const events: WatchEvent[] = [];
    const before = inotifyWatches();
    const handle = await kb.watch({ debounceMs: 50, onEvent: (e) => events.push(e) });
    await handle.ready;
    // knowledge/ and each of the 200 source directories (the archive does not exist here); before, `ready` came
    // while chokidar was still adding them (the scale bench counted 2 watches at ready at 100k entries).
    expect(inotifyWatches() - before).toBeGreaterThanOrEqual(201);
    await writeFile(path.join(root, "src/m199/auth.ts"), source("lastPangolinHook"));
    await waitFor(async () => events.some((e) => e.type === "updated" && e.report.codeChanged.includes("e199")), 20_000); // a bound, not a target: a loaded machine is slow
    expect((await kb.search("lastPangolinHook")).results.map((r) => r.id)).toEqual(["e199"]);
    await handle.close();
  });

  it("is consistent with the files after a storm of 1,000 changes", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES };
    for (let i = 0; i < 100; i++) files[`knowledge/e${i}.md`] = entryText({ finding: `Finding number ${i} about topic ${i % 7}.` });
    const root = await testdir(files);
    const kb = await openKnowledgeBase({ root, embedder: fakeEmbedder(), config: RANKED });
    const handle = await kb.watch({ debounceMs: 100 });
    await handle.ready;
    for (let n = 0; n < 1000; n++) {
      const i = n % 100;
      const file = path.join(root, `knowledge/e${i}.md`);
      if (n % 10 === 3) await rm(file, { force: true });
      else await writeFile(file, entryText({ finding: `Finding number ${i} revision ${n} about topic ${n % 13}.` }));
    }
    await handle.close(); // flushes pending changes
    const onDisk = (await readdir(path.join(root, "knowledge"))).filter((f) => f.endsWith(".md")).map((f) => f.slice(0, -3)).sort();
    const reopened = await openKnowledgeBase({ root, embedder: fakeEmbedder(), config: RANKED });
    const check = await reopened.index();
    expect(check).toMatchObject({ added: [], updated: [], removed: [], embedded: 0 });
    expect((await reopened.searchIndex()).index.ids()).toEqual(onDisk);
    const last = await readFile(path.join(root, "knowledge/e99.md"), "utf8");
    const revision = /revision (\d+)/.exec(last)![1];
    expect((await reopened.search(`revision ${revision}`)).results.map((r) => r.id)).toContain("e99");
  });

  it.runIf(process.platform === "linux")("holds a watch per entry directory, not one per entry (chokidar held one per file: 100,003 at 100k entries)", async () => {
    const files: Record<string, string> = { ...SOURCE_FILES, "knowledge/archive/old.md": entryText({ finding: "An archived finding." }) };
    for (let i = 0; i < 300; i++) files[`knowledge/e${i}.md`] = entryText({ finding: `Finding number ${i}.` });
    const root = await testdir(files);
    const kb = await openKnowledgeBase({ root, embedder: null });
    const before = inotifyWatches();
    const handle = await kb.watch({ debounceMs: 50 });
    await handle.ready;
    const held = inotifyWatches() - before;
    // knowledge/ and knowledge/archive/, plus the anchored source (src/auth.ts) and its directory: in place once ready.
    expect(held).toBeGreaterThanOrEqual(3);
    expect(held).toBeLessThanOrEqual(6);
    await writeFile(path.join(root, "knowledge/e7.md"), entryText({ finding: "Finding number seven now mentions a quokkaLatch." }));
    await waitFor(async () => (await kb.search("quokkaLatch")).results[0]?.id === "e7");
    await handle.close();
    expect(inotifyWatches()).toBe(before);
  });

  it("follows an archive directory created, removed and created again while it watches", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText({ finding: "Alpha finding about caching headers." }) });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const handle = await kb.watch({ debounceMs: 50 });
    await handle.ready;
    const state = async (id: string) => (await kb.searchIndex()).index.meta(id)?.state;
    // Created and written at once: the write may land before the directory is watched; the refresh its creation starts finds it.
    await mkdir(path.join(root, "knowledge/archive"));
    await writeFile(path.join(root, "knowledge/archive/b.md"), entryText({ finding: "Beta finding about pools." }));
    await waitFor(async () => (await state("b")) === "archived");
    await rm(path.join(root, "knowledge/archive"), { recursive: true });
    await waitFor(async () => (await state("b")) === undefined);
    await mkdir(path.join(root, "knowledge/archive"));
    await new Promise((r) => setTimeout(r, 200));
    // A file written into the re-created directory well after its creation: only a watch on it reports this one.
    await writeFile(path.join(root, "knowledge/archive/c.md"), entryText({ finding: "Gamma finding about retries." }));
    await waitFor(async () => (await state("c")) === "archived");
    await writeFile(path.join(root, "knowledge/archive/c.md"), entryText({ finding: "Gamma finding about retries and a wombatGate." }));
    await waitFor(async () => (await kb.search("wombatGate", { includeArchived: true })).results[0]?.id === "c");
    await handle.close();
  });

  it("waits for its own process's refresh to let go of the index lock; refuses another process's", async () => {
    // An MCP server whose first tool call refreshed the index as its watcher started: the watcher found the lock held
    // by its own process and the server ran without one for its whole life.
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText({ finding: "Alpha finding about caching headers." }) });
    const kb = await openKnowledgeBase({ root, embedder: null });
    const release = await acquireIndexLock(path.join(root, ".cairn"));
    await kb.searchIndex(); // opened: the watcher goes straight to the lock
    const started = kb.watch({ debounceMs: 50 });
    await new Promise((r) => setTimeout(r, 1_000));
    await release();
    const handle = await started;
    await handle.ready;
    await handle.close();
    // A lock naming this pid that this process does not hold (a dead process's, the pid reused; no start time to
    // tell them apart where /proc is missing): refused at once, not waited for.
    const { writeFile: write } = await import("node:fs/promises");
    const { hostname } = await import("node:os");
    await write(path.join(root, ".cairn/index.lock"), JSON.stringify({ pid: process.pid, host: hostname(), token: "not-ours", time: "2020-01-01T00:00:00.000Z", command: "cairn watch" }));
    const at = Date.now();
    await expect(kb.watch()).rejects.toThrow(/is using the search index/);
    expect(Date.now() - at).toBeLessThan(5_000);
    await rm(path.join(root, ".cairn/index.lock"));
    // Another process's (here: a child that takes the lock and sleeps): refused at once, as before.
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", `import { acquireIndexLock } from ${JSON.stringify(pathToFileURL(path.join(REPO, "src/indexing/lock.ts")).href)}; await acquireIndexLock(${JSON.stringify(path.join(root, ".cairn"))}); console.log("held"); setTimeout(() => {}, 60000);`], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
      await expect(kb.watch()).rejects.toThrow(/another cairn process \(pid \d+/);
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);
});

