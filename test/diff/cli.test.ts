import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diff } from "../../src/cli/commands/diff.js";
import type { Io } from "../../src/cli/output.js";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { cairn } from "../helpers/cli.js";
import { entryText, tempRepo, type TempRepo } from "./repo.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await tempRepo();
  await repo.write("knowledge/a.md", entryText({ finding: "Entry a." }));
  repo.commit("base");
  await repo.write("knowledge/a.md", entryText({ finding: "Entry a.", lastConfirmed: "2026-02-12" }));
});
afterEach(async () => {
  await repo.cleanup();
});

function capture(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), tty: false };
}

describe("cairn diff command", () => {
  it("prints the markdown summary by default and exits 0", async () => {
    const kb = await openKnowledgeBase({ root: repo.dir, now: () => new Date("2026-03-01T00:00:00Z") });
    const io = capture();
    expect(await diff(kb, io, "HEAD", undefined, {})).toBe(0);
    expect(io.stdout.join("")).toBe(
      "## Knowledge changes (HEAD..working tree)\n\n**1 confirmed**\n\n### Confirmed (1)\n\n- `a` · `knowledge/a.md` — Entry a. — lastConfirmed 2026-01-02 → 2026-02-12 (independent); decay 0/10\n",
    );
    expect(io.stderr).toEqual([]);
  });

  it("markdown redirected to a file (`cairn diff main > comment.md`) keeps what defuses a mention as ASCII, not a terminal escape", async () => {
    await repo.write("knowledge/a.md", entryText({ finding: "Entry a, see @alice about #12.", lastConfirmed: "2026-02-12" }));
    const { stdout } = await cairn(["--root", repo.dir, "diff", "HEAD"]);
    expect(stdout).toContain("Entry a, see @&#8203;alice about #&#8203;12.");
    expect(stdout).not.toMatch(/\\u200b|\u200b/);
  });

  it("prints the KnowledgeDiff as JSON with --json", async () => {
    const kb = await openKnowledgeBase({ root: repo.dir });
    const io = capture();
    expect(await diff(kb, io, "HEAD", undefined, { json: true })).toBe(0);
    const parsed = JSON.parse(io.stdout.join("")) as { confirmed: Array<{ id: string; confirmedFrom: string }>; head: string };
    expect(parsed.head).toBe("working tree");
    expect(parsed.confirmed.map((e) => [e.id, e.confirmedFrom])).toEqual([["a", "2026-01-02"]]);
  });

  it("lets an unknown revision reach the CLI's error mapping as a USAGE error", async () => {
    const kb = await openKnowledgeBase({ root: repo.dir });
    await expect(diff(kb, capture(), "mian", undefined, {})).rejects.toMatchObject({ code: "USAGE" });
  });
});
