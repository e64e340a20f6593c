/**
 * A pull request can commit files under `.cairn/` (git add -f). A lock there named an owner nobody can check (another
 * host), and the checkout gave it a fresh mtime, so every fresh clone (CI) honoured it for a minute: `inject` for the
 * chosen agent and run gave nothing, while `check` and `cairn diff` passed. Real git, real processes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
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
    const started = Date.now();
    const result = await cairn(["inject", "--run", "pr-7", "--agent", "security", "--summary", "auth middleware cancellation handleRequest"], { cwd: clone, env: ENV });
    const took = Date.now() - started;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("### 1. ctx-cancel");
    expect(result.stderr).not.toContain("nothing injected");
    expect(result.stderr).not.toContain("could not serialise");
    expect(result.stderr).toContain(`warning: ${lock} is committed to git (it names pid 4242 on "some-other-runner"): a lock is local to the process that holds it, so this one came in a commit and was not honoured`);
    expect(result.stderr).toContain("warning: .cairn/inject.lock is committed to git");
    expect(result.stderr).toContain("git rm -r --cached .cairn");
    expect(took).toBeLessThan(8_000); // before: ~11 s (the agent's lock waited 10 s, then gave up)
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
    const started = Date.now();
    const confirm = await cairn(["confirm", "ctx-cancel"], { cwd: clone, env: ENV });
    expect(confirm.code).toBe(0);
    expect(confirm.stderr).toContain("warning: .cairn/lifecycle/index.lock is committed to git");
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 90_000);
});
