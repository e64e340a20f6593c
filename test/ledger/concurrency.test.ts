import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLedger } from "../../src/ledger/read.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/append-worker.ts", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-ledger-conc-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Child = { ready: Promise<void>; done: Promise<number | null>; go: () => void };

function startWorker(ledgerDir: string, id: number, count: number): Child {
  const child = spawn(process.execPath, ["--import", "tsx", worker, ledgerDir, String(id), String(count)], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`worker ${id} exited before ready (${code}): ${stderr}`)));
  });
  const done = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      if (code !== 0) console.error(`worker ${id} stderr:\n${stderr}`);
      resolve(code);
    });
  });
  return { ready, done, go: () => child.stdin.end("go\n") };
}

describe("concurrent appends from separate processes", () => {
  it("8 processes x 100 appends give exactly 800 complete, distinct lines", async () => {
    const ledgerDir = path.join(dir, "knowledge", ".ledger");
    const workers = Array.from({ length: 8 }, (_, id) => startWorker(ledgerDir, id, 100));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const codes = await Promise.all(workers.map((w) => w.done));
    expect(codes).toEqual(Array(8).fill(0));

    const files = await readdir(ledgerDir);
    expect(files.length).toBeGreaterThanOrEqual(1);
    const lines: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(ledgerDir, file), "utf8");
      expect(text.endsWith("\n")).toBe(true);
      lines.push(...text.split("\n").slice(0, -1));
    }
    expect(lines).toHaveLength(800);
    const events = lines.map((line) => JSON.parse(line) as { eventId: string; run: string; entries: string[] });
    expect(new Set(events.map((e) => e.eventId)).size).toBe(800);
    expect(new Set(events.map((e) => e.run)).size).toBe(800);
    for (let id = 0; id < 8; id++) {
      const runs = events.filter((e) => e.run.startsWith(`run-${id}-`));
      expect(runs).toHaveLength(100);
      expect(runs.every((e) => e.entries.length === 60)).toBe(true);
    }
    // The writers really overlapped: in file order, lines from different workers alternate.
    let switches = 0;
    for (let i = 1; i < events.length; i++) {
      if (events[i]?.run.split("-")[1] !== events[i - 1]?.run.split("-")[1]) switches += 1;
    }
    expect(switches).toBeGreaterThan(7);

    const read = await readLedger(ledgerDir);
    expect(read.warnings).toEqual([]);
    expect(read.events).toHaveLength(800);
  });
});
