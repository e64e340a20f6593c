/**
 * Issue 8: a stale lock left by a killed `index` stalled the next one 15–26 s; a stale inject lock
 * stalled `inject` ~31 s. A lock whose holder is dead is broken at once; `inject` never waits
 * more than 1 s for a live holder (it degrades with a warning).
 */
import { execFileSync, spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { acquireLock, FOREIGN_STALE_MS } from "../../src/store/lock.js";
import { currentOwner, liveness } from "../../src/store/owner.js";
import { cairn, REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

/** Start a process that takes `<dir>/<name>.lock` and then waits; resolves once the lock is held. */
async function holder(dir: string, name: string): Promise<{ pid: number; kill(): Promise<void> }> {
  const script = `
    const { acquireLock } = await import(${JSON.stringify(path.join(REPO, "dist/store/lock.js"))});
    await acquireLock(${JSON.stringify(dir)}, ${JSON.stringify(name)});
    process.stdout.write("held\\n");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited early (${code})`)));
  });
  return {
    pid: child.pid!,
    kill: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

describe("locks", () => {
  it("a lock left by a killed process is broken at once; a live holder is respected", async () => {
    const dir = await testdir();
    const live = await holder(dir, "index");
    const record = JSON.parse(await readFile(path.join(dir, "index.lock"), "utf8"));
    expect(record).toMatchObject({ pid: live.pid, host: os.hostname() });
    expect(liveness(record)).toBe("alive");
    await expect(acquireLock(dir, "index")).rejects.toMatchObject({ code: "LOCKED", message: expect.stringContaining(`pid ${live.pid}`) });
    await live.kill();
    expect(liveness(record)).toBe("dead");
    const release = await acquireLock(dir, "index"); // no wait: the dead holder's lock is broken at once
    expect(JSON.parse(await readFile(path.join(dir, "index.lock"), "utf8")).pid).toBe(process.pid);
    await release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("a pid now used by a later process, or a lock from another host past its heartbeat bound, is stale", async () => {
    const dir = await testdir();
    const me = currentOwner();
    if (me.start !== undefined) {
      // Same pid, different start time: the pid was reused after the holder died.
      await writeFile(path.join(dir, "index.lock"), JSON.stringify({ ...me, start: "1", token: "t", time: "", command: "" }));
      await (await acquireLock(dir, "index"))();
    }
    await writeFile(path.join(dir, "index.lock"), JSON.stringify({ pid: 1, host: "elsewhere", token: "t", time: "", command: "" }));
    await expect(acquireLock(dir, "index")).rejects.toMatchObject({ code: "LOCKED" }); // fresh heartbeat: respected
    const old = new Date(Date.now() - FOREIGN_STALE_MS - 1_000);
    await import("node:fs/promises").then((fs) => fs.utimes(path.join(dir, "index.lock"), old, old));
    await (await acquireLock(dir, "index"))();
  });

  it("waits for a live holder up to the given bound, then reports who holds it", async () => {
    const dir = await testdir();
    const release = await acquireLock(dir, "x");
    const started = Date.now();
    const error = await acquireLock(dir, "x", { wait: 300 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(error).toMatchObject({ code: "LOCKED", message: expect.stringContaining(`pid ${process.pid}`) });
    setTimeout(() => void release(), 100);
    await (await acquireLock(dir, "x", { wait: 5_000 }))();
  });

  it("index and inject go straight through a lock left by a killed process", async () => {
    const root = await testdir({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    const cache = path.join(root, ".cairn");
    for (const name of ["index", "inject"]) await (await holder(cache, name)).kill();
    expect((await readdir(cache)).sort()).toEqual(["index.lock", "inject.lock"]);
    const index = await cairn(["--root", root, "index"]);
    expect(index.code).toBe(0);
    const inject = await cairn(["--root", root, "inject", "--run", "r1", "--agent", "security", "--keywords", "context,cancellation"]);
    expect(inject.code).toBe(0);
    expect(inject.stderr).not.toContain("could not serialise");
    expect(inject.stdout).toContain("Knowledge Context");
  });

  it("inject degrades with a warning instead of waiting on a live holder", async () => {
    const root = await testdir({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    const release = await acquireLock(path.join(root, ".cairn"), "inject");
    try {
      const kb = await openKnowledgeBase({ root, embedder: null });
      const result = await kb.inject({ run: "r1", agent: "security", keywords: ["context", "cancellation"] });
      expect(result.entries.map((e) => e.id)).toEqual(["ctx"]);
      expect(result.warnings.join("\n")).toMatch(/could not serialise this injection with the others of this knowledge base \(another cairn process \(pid \d+.*\) is using injections.*\); the cap holds/);
    } finally {
      await release();
    }
  });

  it("a lock file git tracks as committed is broken with a warning; a live lock written over that path is still honoured", async () => {
    const root = await testdir({ ".cairn/index.lock": JSON.stringify({ pid: 1, host: os.hostname(), token: "forged", time: new Date().toISOString(), command: "cairn watch" }) });
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: root, encoding: "utf8" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "a pull request commits a lock");
    const dir = path.join(root, ".cairn");
    // pid 1 on this host is alive: the record alone made this lock held for as long as the system runs.
    expect(liveness(JSON.parse(await readFile(path.join(dir, "index.lock"), "utf8")))).toBe("alive");
    const warnings: string[] = [];
    const release = await acquireLock(dir, "index", { root, onWarning: (message) => warnings.push(message) });
    expect(warnings).toEqual([expect.stringMatching(/^\.cairn\/index\.lock is committed to git \(it names pid 1 on .*\): .*not honoured.*git rm -r --cached \.cairn\b/)]);
    expect(JSON.parse(await readFile(path.join(dir, "index.lock"), "utf8")).pid).toBe(process.pid);
    await release();
    // The path stays tracked; a real holder's lock there differs from git's copy, so it is waited for like any other.
    const live = await holder(dir, "index");
    try {
      await expect(acquireLock(dir, "index", { root, onWarning: (message) => warnings.push(message) })).rejects.toMatchObject({ code: "LOCKED", message: expect.stringContaining(`pid ${live.pid}`) });
      expect(warnings).toHaveLength(1);
    } finally {
      await live.kill();
    }
  });
});
