/** Where a run happens: one review split across places (a moved clone, another container) is one run with CAIRN_ORIGIN. */
import { execFileSync } from "node:child_process";
import { rename } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const FINDING = "Auth middleware often swallows context cancellation errors — check for ctx.Err() after upstream calls.";
const base = { CAIRN_USE_WATCH: "0", CAIRN_ACTOR: "ci", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** A git repository with one entry, injected into agent `sec` in run `pr-7` under `env`, then moved to another path. */
async function injectedThenMoved(env: Record<string, string>): Promise<string> {
  const dir = await testdir({ ...SOURCE_FILES, "knowledge/ctx-cancel.md": entryText() });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: { ...process.env, ...base } });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "knowledge");
  const injected = await cairn(["inject", "--run", "pr-7", "--agent", "sec", "--keywords", "context,cancellation"], { cwd: dir, env: { ...base, ...env } });
  expect(injected.stdout).toContain("ctx-cancel");
  // The record step runs elsewhere: here, the same files at another path (a new checkout, another container).
  const moved = `${dir}-elsewhere`;
  await rename(dir, moved);
  return moved;
}

async function recorded(dir: string, env: Record<string, string>) {
  const findings = JSON.stringify({ findings: [{ agent: "sec", text: FINDING }] });
  const result = await cairn(["record", "--run", "pr-7", "--findings", "-", "--json"], { cwd: dir, env: { ...base, ...env }, input: findings });
  return { ...result, json: JSON.parse(result.stdout) as { confirmations: Array<{ entry: string; provenance: string }>; warnings: string[] } };
}

describe("CAIRN_ORIGIN", () => {
  it("without it, a review recorded from a moved clone is another run: the shown agent counts as independent, with a warning", async () => {
    const dir = await injectedThenMoved({});
    const { json } = await recorded(dir, {});
    expect(json.confirmations).toEqual([expect.objectContaining({ entry: "ctx-cancel", provenance: "independent" })]);
    expect(json.warnings.join("\n")).toMatch(/run "pr-7" has no recorded injection/);
  });

  it("with one value for the review, the agent that was shown the entry is primed wherever record runs", async () => {
    const env = { CAIRN_ORIGIN: "acme/api#pr-7" };
    const dir = await injectedThenMoved(env);
    const { json } = await recorded(dir, env);
    expect(json.confirmations).toEqual([expect.objectContaining({ entry: "ctx-cancel", provenance: "primed" })]);
    expect(json.warnings).toEqual([]);
  });
});
