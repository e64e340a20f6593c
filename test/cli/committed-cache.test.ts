/**
 * A pull request can commit files under `.cairn/` (git add -f). A lock there named an owner nobody can check (another
 * host), and the checkout gave it a fresh mtime, so every fresh clone (CI) honoured it for a minute: `inject` for the
 * chosen agent and run gave nothing, while `check` and `cairn diff` passed. Real git, real processes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn, REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const ENV = { CAIRN_USE_WATCH: "0" };

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });
}

/** A repository with one entry, then a pull request's commit adding `locks` (path under the root → owner record); a fresh clone of it. */
async function cloneWithCommitted(locks: Record<string, object>): Promise<{ repo: string; clone: string }> {
  const repo = await testdir({ "knowledge/ctx-cancel.md": entryText(), ...SOURCE_FILES });
  expect((await cairn(["init"], { cwd: repo })).code).toBe(0);
  git(repo, "init", "-q");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  for (const [rel, owner] of Object.entries(locks)) {
    await mkdir(path.dirname(path.join(repo, rel)), { recursive: true });
    await writeFile(path.join(repo, rel), JSON.stringify({ token: "deadbeef", time: new Date().toISOString(), command: "cairn inject", ...owner }));
  }
  git(repo, "add", "-f", ".");
  git(repo, "commit", "-qm", "pr");
  const clone = path.join(await testdir(), "clone");
  git(repo, "clone", "-q", repo, clone);
  return { repo, clone };
}

const agentRunLock = (run: string, agent: string) => `.cairn/inject-${createHash("sha256").update(`${run}\0${agent}`).digest("hex").slice(0, 16)}.lock`;

describe("a .cairn/ committed to git", () => {
  it("inject in a fresh clone with a committed lock for its agent and run gets its entries, at once, and warns", async () => {
    const lock = agentRunLock("pr-7", "security");
    const { clone } = await cloneWithCommitted({
      [lock]: { pid: 4242, host: "some-other-runner", start: "0" },
      // Same host, pid 1: alive for as long as the system runs, so the record alone held the injections lock.
      ".cairn/inject.lock": { pid: 1, host: os.hostname() },
    });
    const result = await cairn(["inject", "--run", "pr-7", "--agent", "security", "--summary", "auth middleware cancellation handleRequest"], { cwd: clone, env: ENV });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("### 1. ctx-cancel");
    expect(result.stderr).not.toContain("nothing injected"); // before: after waiting 10 s for the agent's lock
    expect(result.stderr).not.toContain("could not serialise");
    expect(result.stderr).toContain(`warning: ${lock} is committed to git (it names pid 4242 on "some-other-runner"): a lock is local to the process that holds it, so this one came in a commit and was not honoured`);
    expect(result.stderr).toContain("warning: .cairn/inject.lock is committed to git");
    expect(result.stderr).toContain("git rm -r --cached .cairn");
  }, 30_000);

  it("index and the lifecycle commands go through committed index and lifecycle locks", async () => {
    const { clone } = await cloneWithCommitted({
      ".cairn/index.lock": { pid: 1, host: os.hostname(), command: "cairn watch" },
      ".cairn/lifecycle/index.lock": { pid: 1, host: os.hostname(), command: "cairn record" },
      "knowledge/.pending/ctx-cancel.lock": { pid: 1, host: os.hostname(), command: "cairn confirm" },
    });
    // Before: "the index is kept current by `cairn watch` (pid 1 …): nothing to do", in every clone.
    const index = await cairn(["index"], { cwd: clone, env: ENV });
    expect(index.code).toBe(0);
    expect(index.stdout).toMatch(/^indexed 1 entries/m);
    expect(index.stderr).toContain("warning: .cairn/index.lock is committed to git");
    // Before: waited 60 s for the lifecycle lock, then failed.
    const confirm = await cairn(["confirm", "ctx-cancel"], { cwd: clone, env: ENV });
    expect(confirm.code).toBe(0);
    expect(confirm.stderr).toContain("warning: .cairn/lifecycle/index.lock is committed to git");
  }, 90_000);

  it("check reports every tracked file under .cairn/ as cache-tracked, and passes once they are removed from git", async () => {
    const { clone } = await cloneWithCommitted({ [agentRunLock("pr-7", "security")]: { pid: 4242, host: "some-other-runner" } });
    const rel = agentRunLock("pr-7", "security");
    await mkdir(path.join(clone, ".cairn/records"), { recursive: true });
    await writeFile(path.join(clone, ".cairn/records/records-gen-1.jsonl"), "{}\n");
    git(clone, "add", "-f", ".cairn/records/records-gen-1.jsonl");
    const report = await cairn(["check", "--json"], { cwd: clone, env: ENV });
    expect(report.code).toBe(1);
    const found = JSON.parse(report.stdout).diagnostics.map((d: { file: string; rule: string; severity: string }) => [d.file, d.rule, d.severity]);
    expect(found).toEqual([
      [rel, "cache-tracked", "error"],
      [".cairn/records/records-gen-1.jsonl", "cache-tracked", "error"],
    ]);
    const human = await cairn(["check"], { cwd: clone, env: ENV });
    expect(human.stdout).toContain(`${rel}:1:1 error cache-tracked committed to git: .cairn/ holds cairn's derived index, caches and locks`);
    expect(human.stdout).toContain("git rm -r --cached .cairn");
    // The Action's format: an annotation on the file, which the pull request changed.
    const github = await cairn(["check", "--format", "github"], { cwd: clone, env: ENV });
    expect(github.stdout).toContain(`::error file=${rel},line=1`);
    git(clone, "rm", "-r", "-q", "--cached", ".cairn");
    expect(await cairn(["check"], { cwd: clone, env: ENV })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^0 errors, 0 warnings/m) });
  }, 60_000);

  it("a committed embedding cache is not read in a fresh clone: its vectors would rank entries as their author chose", async () => {
    const repo = await testdir({
      "knowledge/ctx-cancel.md": entryText(),
      "knowledge/retry.md": entryText({ finding: "Retries without jitter stampede the upstream after an outage; add jitter to the backoff." }),
      "cairn.config.json": JSON.stringify({ embedder: { provider: "transformers", model: "test/tiny-bert", path: "models/tiny-bert", weight: 1 } }),
      ...SOURCE_FILES,
    });
    await cp(path.join(REPO, "test/fixtures/tiny-bert"), path.join(repo, "models/tiny-bert"), { recursive: true });
    expect((await cairn(["init"], { cwd: repo })).code).toBe(0);
    const index = async (cwd: string) => {
      const run = await cairn(["index", "--json"], { cwd, env: ENV });
      expect(run.code).toBe(0);
      const { embedded, reused } = JSON.parse(run.stdout) as { embedded: number; reused: number };
      return { embedded, reused };
    };
    expect(await index(repo)).toEqual({ embedded: 2, reused: 0 });
    expect((await readdir(path.join(repo, ".cairn/embeddings"))).some((name) => name.endsWith(".bin"))).toBe(true);
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "add", "-f", ".cairn/embeddings"); // vectors by content hash: anyone can write the ones they like
    git(repo, "commit", "-qm", "pr");
    const clone = path.join(await testdir(), "clone");
    git(repo, "clone", "-q", repo, clone);
    // Before: { embedded: 0, reused: 2 }, the committed vectors taken as they were.
    expect(await index(clone)).toEqual({ embedded: 2, reused: 0 });
    // The clone's own cache is sealed to it and reused from then on (a rebuild embeds nothing).
    const rebuild = await cairn(["index", "--rebuild", "--json"], { cwd: clone, env: ENV });
    expect(JSON.parse(rebuild.stdout)).toMatchObject({ embedded: 0, reused: 2 });
  }, 90_000);
});
