/**
 * A command that records ledger events looks its actor up as its process starts (main.ts), for the root its
 * arguments name; the command line uses that name only for a knowledge base opened at that very root. Real
 * processes: the command line of dist/ (tsc's output) is run with a given early actor.
 */
import { execFile, execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const CLI_MODULE = path.join(REPO, "dist/cli/cli.js");
const isolated = { CAIRN_ACTOR: "", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", CAIRN_USE_WATCH: "0", NO_COLOR: "1" };

/** Run `cairn ARGS` through runCli with an early actor looked up (as main.ts would) for `earlyRoot`. */
function runWithEarlyActor(args: string[], earlyRoot: string, name: string): Promise<number | null> {
  const script = `const { runCli } = await import(${JSON.stringify(CLI_MODULE)});
process.exitCode = await runCli(["node", "cairn", ...${JSON.stringify(args)}], { root: ${JSON.stringify(earlyRoot)}, actor: Promise.resolve(${JSON.stringify(name)}) });`;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, ...isolated } }, () => resolve(child.exitCode));
  });
}

async function confirmedBy(root: string): Promise<unknown[]> {
  const dir = path.join(root, "knowledge/.ledger");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".jsonl")).sort();
  const lines = (await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")))).join("").split("\n").filter(Boolean);
  return lines.map((l) => JSON.parse(l) as { type: string; actor: string }).filter((e) => e.type === "manual-confirmed").map((e) => e.actor);
}

describe("the actor looked up as the process starts", () => {
  it("names the events of a command in that root, and of no other root's", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText() });
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["config", "user.name", "Grace Hopper"], { cwd: root });
    expect(await runWithEarlyActor(["--root", root, "confirm", "ctx"], root, "Early Probe")).toBe(0);
    // Looked up for another root (a --root the command line read differently): the command looks up its own.
    expect(await runWithEarlyActor(["--root", root, "confirm", "ctx"], path.join(root, "knowledge"), "Wrong Root")).toBe(0);
    expect(await confirmedBy(root)).toEqual(["Early Probe", "Grace Hopper"]);
  });
});
