import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, mkdir, mkdtemp, open, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetFoldedLedgers, openLedger, readLedger, type LedgerOptions } from "../../src/ledger/index.js";
import { foldEvents } from "../../src/ledger/source.js";
import { StoredFold } from "../../src/ledger/stored-fold.js";
import { VERSION } from "../../src/version.js";
import { describeState } from "./arbitrary.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/state-worker.ts", import.meta.url));

let root: string;
let ledgerDir: string;
let snapshot: string;
let options: LedgerOptions;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cairn-snapshot-"));
  ledgerDir = path.join(root, "knowledge", ".ledger");
  snapshot = path.join(root, ".cairn", "ledger-state.json");
  options = { root, relativeTo: root, snapshot, snapshotEvery: 1 };
  await mkdir(ledgerDir, { recursive: true });
  forgetFoldedLedgers();
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const FILE = "2026-02.jsonl";
const event = (i: number, entry = `e${i % 5}`) =>
  JSON.stringify({ v: 1, eventId: `E${String(i).padStart(6, "0")}`, time: new Date(Date.parse("2026-02-01T00:00:00Z") + i * 60_000).toISOString(), type: "injected", run: `r${i}`, agent: "security", entries: [entry] });
const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `${event(from + k)}\n`).join("");

/** What a new process would see: no fold kept in memory, only the snapshot on disk. */
async function cold(opts: LedgerOptions = options) {
  forgetFoldedLedgers();
  return openLedger(ledgerDir, opts).state();
}

/** The snapshot's header: its first line. */
async function header(): Promise<any> {
  const text = await readFile(snapshot, "utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n")));
}

async function expectWholeLedger(result: Awaited<ReturnType<typeof cold>>) {
  const full = await readLedger(ledgerDir, { relativeTo: root });
  expect(result.warnings).toEqual(full.warnings);
  expect(describeState(result.state, [])).toEqual(describeState(foldEvents(full.events), []));
}

describe("the ledger snapshot in .cairn/", () => {
  it("a new process parses only the lines appended since the snapshot: a covered line is not read again", async () => {
    await writeFile(path.join(ledgerDir, FILE), lines(0, 200));
    expect((await cold()).state.size).toBe(200);
    expect(await header()).toMatchObject({ format: "cairn-ledger-state", files: [expect.objectContaining({ name: FILE })] });
    // Line 1, far before the end of what the snapshot covers, is damaged in place at the same length;
    // then a line is appended. The new process folds the appended line and never looks at line 1
    // (what git does with its index: a file whose identity holds and whose end is unchanged is trusted).
    const file = path.join(ledgerDir, FILE);
    const text = await readFile(file, "utf8");
    const first = text.indexOf("\n");
    const handle = await open(file, "r+");
    await handle.write("x".repeat(first), 0, "utf8");
    await handle.close();
    await appendFile(file, lines(200, 201));
    const result = await cold();
    expect(result.state.size).toBe(201);
    expect(result.warnings).toEqual([]);
    expect((await readLedger(ledgerDir)).warnings).toEqual([expect.objectContaining({ line: 1, rule: "ledger-invalid-line" })]);
  });

  it("a file replaced (git checkout, merge, rebase), shrunk, or rewritten at its end is read whole again", async () => {
    const file = path.join(ledgerDir, FILE);
    await writeFile(file, lines(0, 50));
    await cold();
    // Replaced by git with the same lines and one more: a new inode.
    await writeFile(`${file}.new`, lines(0, 51));
    await rename(`${file}.new`, file);
    await expectWholeLedger(await cold());
    // Rewritten in place: the last covered line changed, then one appended.
    const text = await readFile(file, "utf8");
    await writeFile(file, `${text.slice(0, -2)}7}\n${lines(60, 61)}`);
    await expectWholeLedger(await cold());
    // Shrunk.
    await writeFile(file, lines(0, 10));
    await expectWholeLedger(await cold());
  });

  it("a ledger of several files: an append to one, then either file replaced, answers as a full read", async () => {
    const [jan, feb] = [path.join(ledgerDir, "2026-01.jsonl"), path.join(ledgerDir, FILE)];
    await writeFile(jan, lines(0, 20));
    await writeFile(feb, lines(20, 40));
    const warm = openLedger(ledgerDir, options);
    expect((await warm.state()).state.size).toBe(40);
    // An append to one file: the other is unchanged since it was folded.
    await appendFile(feb, lines(40, 41));
    await expectWholeLedger(await warm.state());
    // The unchanged file is replaced (a checkout): the re-fold reads both files from the start.
    await writeFile(`${jan}.new`, `${lines(0, 20)}${event(19, "late")}\n`.replace(`"E000019"`, `"E000019b"`));
    await rename(`${jan}.new`, jan);
    await expectWholeLedger(await warm.state());
    await expectWholeLedger(await cold());
    // The appended file replaced while the other is up to date: the same.
    await writeFile(`${feb}.new`, lines(20, 45));
    await rename(`${feb}.new`, feb);
    const after = await warm.state();
    await expectWholeLedger(after);
    expect(after.state.size).toBe(46);
  });

  it("keeps torn last lines out of what it covers and warns about them like a full read", async () => {
    const file = path.join(ledgerDir, FILE);
    await writeFile(file, `${lines(0, 20)}${event(20).slice(0, 30)}`);
    const first = await cold();
    expect(first.warnings).toEqual([expect.objectContaining({ line: 21, rule: "ledger-torn-line" })]);
    const covered = (await header()).files[0];
    expect(covered.offset).toBe(Buffer.byteLength(lines(0, 20)));
    // The next append glues onto the fragment: the reader keeps the complete event after it.
    await appendFile(file, lines(21, 22));
    await expectWholeLedger(await cold());
    expect((await cold()).state.size).toBe(21);
  });

  it("a damaged, foreign or other-version snapshot is ignored and rebuilt", async () => {
    await writeFile(path.join(ledgerDir, FILE), lines(0, 30));
    await mkdir(path.dirname(snapshot), { recursive: true });
    await cold();
    const good = await readFile(snapshot);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 1;
    // Written by another cairn (which may check event lines differently): same bytes but the version in its header.
    const newline = good.indexOf(0x0a);
    const otherCairn = Buffer.concat([Buffer.from(JSON.stringify({ ...JSON.parse(good.toString("utf8", 0, newline)), cairn: "0.0.1" })), good.subarray(newline)]);
    for (const bad of ["{ not json", `${JSON.stringify({ format: "cairn-ledger-state", version: 999 })}\n`, JSON.stringify({ hello: "world" }), flipped, good.subarray(0, good.length - 10), otherCairn]) {
      await writeFile(snapshot, bad);
      await expectWholeLedger(await cold());
      expect(await header()).toMatchObject({ format: "cairn-ledger-state", cairn: VERSION, state: { size: 30 } });
    }
    // A snapshot of another ledger directory (a changed knowledgeDir) is not used either.
    const other = path.join(root, "other", ".ledger");
    await mkdir(other, { recursive: true });
    await writeFile(path.join(other, FILE), lines(0, 3));
    forgetFoldedLedgers();
    expect((await openLedger(other, options).state()).state.size).toBe(3);
  });

  it("a snapshot from another .cairn/ (committed by a pull request, or a copied clone) is never read: it could hold events no ledger line has", async () => {
    // Another clone's ledger holds a confirmation of e1 that this one does not: its snapshot says so.
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), "cairn-snapshot-elsewhere-"));
    try {
      const otherLedger = path.join(elsewhere, "knowledge", ".ledger");
      await mkdir(otherLedger, { recursive: true });
      const confirmed = { v: 1, eventId: "E999999", time: "2026-02-01T05:00:00.000Z", type: "manual-confirmed", entry: "e1" };
      await writeFile(path.join(otherLedger, FILE), `${lines(0, 5)}${JSON.stringify(confirmed)}\n`);
      const otherSnapshot = path.join(elsewhere, ".cairn", "ledger-state.json");
      forgetFoldedLedgers();
      await openLedger(otherLedger, { root: elsewhere, relativeTo: elsewhere, snapshot: otherSnapshot, snapshotEvery: 1 }).state();
      // Here: the same ledger lines without the confirmation, and the other clone's snapshot in .cairn/.
      await writeFile(path.join(ledgerDir, FILE), lines(0, 5));
      await mkdir(path.dirname(snapshot), { recursive: true });
      await writeFile(snapshot, await readFile(otherSnapshot));
      const result = await cold();
      await expectWholeLedger(result);
      expect(result.state.size).toBe(5);
      expect((await header()).seal).toMatch(/^[0-9a-f]{16}$/);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("keeps an entry's events (confirmation, fingerprints) encoded until they are read: counters and the fingerprints' digest do not need them", async () => {
    const prints = [{ path: "src/a.ts", start: 1, end: 2, hash: "0123456789abcdef" }];
    const confirmed = { v: 1, eventId: "E1", time: "2026-02-01T00:00:00.000Z", type: "confirmed", run: "r1", agent: "security", entry: "a", provenance: "independent", fingerprints: prints };
    await writeFile(path.join(ledgerDir, FILE), `${JSON.stringify(confirmed)}\n${lines(1, 3)}`);
    await cold();
    const { state } = await cold();
    const fold = state.entry("a") as StoredFold;
    expect(fold).toBeInstanceOf(StoredFold);
    expect(fold).toMatchObject({ independent: 1, encoded: true });
    const digest = createHash("sha256").update(JSON.stringify({ date: "2026-02-01", prints })).digest("hex").slice(0, 16);
    expect(state.printsDigest("a")).toBe(digest);
    expect(fold.lastArchived).toBeUndefined();
    expect(fold.encoded).toBe(true);
    expect(fold.prints).toEqual({ date: "2026-02-01", prints });
    expect(fold.encoded).toBe(false);
    expect(fold.lastAffirmed).toEqual(confirmed);
  });

  it("never reads or writes the snapshot through a link leaving the repository", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), "cairn-snapshot-outside-"));
    try {
      await symlink(outside, path.join(root, ".cairn"));
      await writeFile(path.join(ledgerDir, FILE), lines(0, 10));
      await expectWholeLedger(await cold());
      await expect(stat(path.join(outside, "ledger-state.json"))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("writes the snapshot only every snapshotEvery events, and after a full re-fold", async () => {
    const file = path.join(ledgerDir, FILE);
    await writeFile(file, lines(0, 10));
    const ledger = openLedger(ledgerDir, { ...options, snapshotEvery: 5 });
    await ledger.state();
    const size = async () => (await header()).state.size as number;
    expect(await size()).toBe(10);
    await appendFile(file, lines(10, 14));
    expect((await ledger.state()).state.size).toBe(14);
    expect(await size()).toBe(10);
    await appendFile(file, lines(14, 15));
    await ledger.state();
    expect(await size()).toBe(15);
    // Smaller than snapshotEvery: no snapshot is worth writing, except to replace one that no longer matches the files.
    await rm(snapshot);
    await writeFile(file, lines(0, 3));
    await cold({ ...options, snapshotEvery: 5 });
    await expect(stat(snapshot)).rejects.toThrow(/ENOENT/);
    await writeFile(file, lines(0, 10));
    await cold({ ...options, snapshotEvery: 5 });
    await writeFile(file, lines(0, 2));
    await cold({ ...options, snapshotEvery: 5 });
    expect(await size()).toBe(2);
  });

  it("returns the same result while no file changed, and folds appends into the same live state", async () => {
    const file = path.join(ledgerDir, FILE);
    await writeFile(file, lines(0, 5));
    const ledger = openLedger(ledgerDir, options);
    const first = await ledger.state();
    expect(await ledger.state()).toBe(first);
    await appendFile(file, lines(5, 6));
    const second = await ledger.state();
    expect(second.state).toBe(first.state);
    expect(second.state.size).toBe(6);
    // Two Ledgers of one directory share the fold; concurrent calls fold a tail once.
    await appendFile(file, lines(6, 8));
    const [a, b] = await Promise.all([ledger.state(), openLedger(ledgerDir, options).state()]);
    expect(a.state).toBe(b.state);
    expect(a.state.size).toBe(8);
  });

  it("processes racing to append and rewrite the snapshot leave a valid one: the last rename wins", async () => {
    const children = Array.from({ length: 4 }, (_, id) => {
      const child = spawn(process.execPath, ["--import", "tsx", worker, ledgerDir, snapshot, String(id), "25"], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.once("data", () => resolve());
        child.once("exit", (code) => reject(new Error(`worker ${id} exited before ready (${code}): ${stderr}`)));
      });
      const done = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code === 0 ? 0 : (console.error(stderr), code))));
      return { ready, done, go: () => child.stdin.end("go\n") };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    expect(await Promise.all(children.map((c) => c.done))).toEqual([0, 0, 0, 0]);
    const result = await cold();
    expect(result.state.size).toBe(100);
    await expectWholeLedger(result);
  }, 60_000);
});
