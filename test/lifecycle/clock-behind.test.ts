/**
 * A machine whose clock is more than a day behind the ledger: the ledger skips lines dated ahead of the clock (a forged
 * confirmation dated 2099 would never decay). When the skipped line is an injection of the run being recorded, who was
 * shown what is unknown here, and the agent's re-finding of what it was shown would count as independent. `record`
 * and `compound` refuse that run instead (before: `provenance: independent`, and the decay counter reset).
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const FINDING = "Auth middleware swallows context cancellation errors after upstream fetch calls.";

async function ledgerLines(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(root, "knowledge/.ledger");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".jsonl"));
  const text = (await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")))).join("");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("record on a machine whose clock is behind the run's injection", () => {
  it("refuses the run, naming the line and the clock, and writes nothing; a run with nothing ahead records as before", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent" }) });
    const env = { CAIRN_USE_WATCH: "0" };
    expect((await cairn(["--root", root, "init"], { env })).code).toBe(0);
    const injected = await cairn(["--root", root, "inject", "--run", "r1", "--agent", "security", "--keywords", "context,cancellation", "--format", "json"], { env });
    expect(JSON.parse(injected.stdout).entries.map((e: { id: string }) => e.id)).toEqual(["ctx"]);
    // The same machine, its clock stepped back two days (NTP, a VM restored from a snapshot, another container's clock).
    const behind = path.join(root, "behind.mjs");
    await writeFile(
      behind,
      "const R = Date, off = -2 * 86400000;\nglobalThis.Date = class extends R { constructor(...a) { if (a.length) super(...a); else super(R.now() + off); } static now() { return R.now() + off; } };\n",
    );
    await writeFile(path.join(root, "f.json"), JSON.stringify({ findings: [{ agent: "security", text: FINDING }] }));
    const before = await ledgerLines(root);
    const refused = await cairn(["--root", root, "record", "--run", "r1", "--findings", path.join(root, "f.json")], { env, nodeArgs: ["--import", behind] });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/record.* refused: .*\.jsonl:1: line skipped: dated .*more than a day after this machine's clock/);
    expect(refused.stderr).toMatch(/run "r1".*primed finding would count as independent/);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await ledgerLines(root)).toEqual(before);
    expect(await readFile(path.join(root, "knowledge/ctx.md"), "utf8")).toContain("lastConfirmed: 2026-02-12");
    // With the clock right, the same record counts the agent as primed.
    const recorded = await cairn(["--root", root, "record", "--run", "r1", "--findings", path.join(root, "f.json"), "--json"], { env });
    expect(recorded.code).toBe(0);
    expect(JSON.parse(recorded.stdout).confirmations).toEqual([expect.objectContaining({ entry: "ctx", provenance: "primed" })]);
    // Another run, behind the same clock: nothing of it is ahead, so it records (the agent was shown nothing there).
    const other = await cairn(["--root", root, "record", "--run", "r2", "--findings", path.join(root, "f.json"), "--json"], { env, nodeArgs: ["--import", behind] });
    expect(other.code).toBe(0);
  });
});
