/**
 * A root, a knowledge directory or a ledger that cannot be used is said for what it is (usage or I/O error naming the
 * place), never as "unexpected error … please report it"; inject does not pass an unreadable ledger off as a used-up cap.
 */
import { execFile } from "node:child_process";
import { chmod, chown, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cairn, type CliResult } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const ROOT_USER = process.getuid?.() === 0;
const NOBODY = 65534;

/** Run the CLI as a user the permission bits apply to: this one, or (as root, which they do not stop) nobody. */
function cairnUnprivileged(args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: { ...process.env, NO_COLOR: "1", HOME: cwd, CAIRN_USE_WATCH: "0" }, ...(ROOT_USER ? { uid: NOBODY, gid: NOBODY } : {}) },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function giveAway(dir: string): Promise<void> {
  if (!ROOT_USER) return;
  await chown(dir, NOBODY, NOBODY);
  for (const entry of await readdir(dir, { recursive: true })) await chown(path.join(dir, entry), NOBODY, NOBODY);
}

async function project(): Promise<string> {
  const dir = await testdir({
    ...SOURCE_FILES,
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    "knowledge/archive/old.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\narchived: 2026-03-01\narchivedReason: decay" }),
    "knowledge/auth.md": entryText(),
  });
  expect((await cairn(["init"], { cwd: dir })).code).toBe(0);
  return dir;
}

describe("places cairn cannot use", () => {
  it("--root naming a file is a usage error (exit 2) saying a directory was expected", async () => {
    const dir = await testdir({ "afile": "x\n" });
    for (const args of [["status"], ["check"], ["show", "x"], ["init"]]) {
      const r = await cairn(["--root", path.join(dir, "afile"), ...args]);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toContain(`the project root ${path.join(dir, "afile")} is not a directory`);
      expect(r.stderr, args[0]).not.toMatch(/unexpected error|please report|ENOTDIR/);
    }
  });

  it("an unreadable knowledge/archive/ is an I/O error naming the directory, from status and check", async () => {
    const dir = await project();
    await giveAway(dir);
    await chmod(path.join(dir, "knowledge/archive"), 0o000);
    try {
      for (const command of ["status", "check"]) {
        const r = await cairnUnprivileged([command], dir);
        expect(r.code, command).toBe(3);
        expect(r.stderr, command).toContain("cannot list the entries in knowledge/archive/: permission denied");
        expect(r.stderr, command).not.toMatch(/unexpected error|please report/);
      }
    } finally {
      await chmod(path.join(dir, "knowledge/archive"), 0o755);
    }
  });

  it("inject with an unreadable ledger says the ledger could not be read and reports remaining: null, not 0", async () => {
    const dir = await project();
    const ledger = path.join(dir, "knowledge/.ledger/2026-01.jsonl");
    await writeFile(ledger, "");
    await giveAway(dir);
    await chmod(ledger, 0o000);
    try {
      const r = await cairnUnprivileged(["inject", "--run", "r1", "--agent", "a", "--keywords", "cancellation", "--format", "json"], dir);
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout) as { remaining: number | null; entries: unknown[]; warnings: string[] };
      expect(result.entries).toEqual([]);
      expect(result.remaining).toBeNull();
      expect(result.warnings.join("\n")).toMatch(/Cannot read ledger file .*2026-01\.jsonl/);
    } finally {
      await chmod(ledger, 0o644);
    }
  });
});
