import { describe, expect, it } from "vitest";
import type { EntryStatus } from "../../src/entry/types.js";
import { checkTransition, TRANSITIONS } from "../../src/lifecycle/transitions.js";
import { entry, events, fm, project, read } from "./setup.js";

const added = (before: string, after: string) => after.split("\n").filter((line) => !before.split("\n").includes(line));

const PAIR = {
  "knowledge/old-rule.md": entry("Retries without backoff overload the upstream during incidents."),
  "knowledge/new-rule.md": entry("Retries need exponential backoff with jitter and a retry budget per request."),
  "knowledge/third.md": entry("Timeouts shorter than the upstream's p99 turn slow responses into retries."),
};

describe("supersede", () => {
  it("links both entries, marks OLD superseded and archives it; check stays clean", async () => {
    const { kb, root, clock } = await project(PAIR);
    const newBefore = await read(root, "knowledge/new-rule.md");
    const result = await kb.supersede("old-rule", "new-rule");
    expect(result).toMatchObject({ kind: "done", id: "old-rule", path: "knowledge/archive/old-rule.md" });
    const newAfter = await read(root, "knowledge/new-rule.md");
    expect(added(newBefore, newAfter)).toEqual(["supersedes: [old-rule]"]);
    expect(newAfter.replace("supersedes: [old-rule]\n", "")).toBe(newBefore);
    const old = await read(root, "knowledge/archive/old-rule.md");
    expect(old).toMatch(/^status: superseded$/m);
    expect(old).toMatch(/^supersededBy: new-rule$/m);
    expect(old).toMatch(new RegExp(`^archived: ${clock.today()}$`, "m"));
    expect(old).toMatch(/^archivedReason: superseded by new-rule$/m);
    expect((await events(kb)).map((e) => e.type)).toEqual(["superseded", "archived"]);
    expect((await kb.check()).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    // Superseded entries are no longer injected, even when asked for superseded ones (they are archived).
    const injected = await kb.inject({ run: "r1", agent: "a", keywords: ["retries", "backoff"], includeStatuses: ["superseded"], dryRun: true });
    expect(injected.entries.map((e) => e.id)).toContain("new-rule");
    expect(injected.entries.map((e) => e.id)).not.toContain("old-rule");
  });

  it("is terminal for restore too: a superseded archived entry is not brought back (it would never be injected nor decay)", async () => {
    const { kb, root } = await project(PAIR);
    await kb.supersede("old-rule", "new-rule");
    const archived = await read(root, "knowledge/archive/old-rule.md");
    const before = (await events(kb)).length;
    // Before: restored into knowledge/ with `status: superseded`, where inject skips it and decay never reaches it.
    expect(await kb.restore("old-rule", "by hand")).toMatchObject({ kind: "refused", reason: expect.stringMatching(/"old-rule" is superseded by new-rule; superseded is terminal/) });
    expect(await read(root, "knowledge/archive/old-rule.md")).toBe(archived);
    expect((await events(kb)).length).toBe(before);
  });

  it("is terminal: a superseded entry cannot be superseded by another entry; repeating the same supersede changes nothing", async () => {
    const { kb, root } = await project(PAIR);
    await kb.supersede("old-rule", "new-rule");
    const again = await kb.supersede("old-rule", "new-rule");
    expect(again).toMatchObject({ kind: "done", changed: false });
    expect((await events(kb)).filter((e) => e.type === "superseded")).toHaveLength(1);
    const other = await kb.supersede("old-rule", "third");
    expect(other).toMatchObject({ kind: "refused", reason: expect.stringMatching(/already superseded by new-rule; superseded is terminal/) });
    expect(await read(root, "knowledge/third.md")).not.toContain("supersedes");
    expect(await kb.setStatus("old-rule", "verified")).toMatchObject({ kind: "refused", reason: expect.stringMatching(/terminal/) });
  });

  it("refuses self-supersession, an archived or superseded replacement, and unknown ids (with suggestions)", async () => {
    const { kb } = await project({
      ...PAIR,
      "knowledge/archive/gone.md": entry("Circuit breakers open on the first failure.", { fm: fm("archived: 2026-02-01", "archivedReason: decayed") }),
    });
    expect(await kb.supersede("old-rule", "old-rule")).toMatchObject({ kind: "refused", reason: "an entry cannot supersede itself" });
    expect(await kb.supersede("old-rule", "gone")).toMatchObject({ kind: "refused", reason: expect.stringMatching(/is archived; restore it first/) });
    expect(await kb.supersede("old-rul", "new-rule")).toEqual({ kind: "not-found", id: "old-rul", suggestions: ["old-rule"] });
    expect(await kb.supersede("old-rule", "new-rul")).toEqual({ kind: "not-found", id: "new-rul", suggestions: ["new-rule"] });
    // A chain: once third supersedes new-rule, new-rule cannot supersede anything.
    await kb.supersede("new-rule", "third");
    expect(await kb.supersede("old-rule", "new-rule")).toMatchObject({ kind: "refused" });
    expect(await events(kb)).toHaveLength(2);
  });

  it("completes a supersede a human started by hand (status set, file still active)", async () => {
    const { kb, root } = await project({
      ...PAIR,
      "knowledge/old-rule.md": entry("Retries without backoff overload the upstream during incidents.", { fm: fm("status: superseded", "supersededBy: new-rule") }),
    });
    expect(await kb.supersede("old-rule", "new-rule")).toMatchObject({ kind: "done", path: "knowledge/archive/old-rule.md" });
    expect(await read(root, "knowledge/new-rule.md")).toContain("supersedes: [old-rule]");
  });
});

describe("setStatus: validated transitions", () => {
  it("applies an allowed change as a one-line edit", async () => {
    const { kb, root } = await project(PAIR);
    const before = await read(root, "knowledge/third.md");
    expect(await kb.setStatus("third", "verified")).toMatchObject({ kind: "done", changed: true });
    const after = await read(root, "knowledge/third.md");
    // One added line; removing it gives back the original bytes.
    expect(added(before, after)).toEqual(["status: verified"]);
    expect(after.replace("status: verified\n", "")).toBe(before);
    expect(await kb.setStatus("third", "verified")).toMatchObject({ kind: "done", changed: false });
  });

  it("refuses disallowed changes, `superseded` (use supersede) and unknown statuses, writing nothing", async () => {
    const { kb, root } = await project({ "knowledge/d.md": entry("Feature flags are read once at startup and never refreshed.", { fm: fm("status: disputed") }) });
    const before = await read(root, "knowledge/d.md");
    expect(await kb.setStatus("d", "observed")).toMatchObject({ kind: "refused", reason: "status disputed → observed is not allowed; from disputed an entry may become verified, superseded" });
    expect(await kb.setStatus("d", "superseded")).toMatchObject({ kind: "refused", reason: expect.stringMatching(/cairn supersede OLD NEW/) });
    expect(await kb.setStatus("d", "bogus" as EntryStatus)).toMatchObject({ kind: "refused", reason: expect.stringMatching(/unknown status "bogus"/) });
    expect(await read(root, "knowledge/d.md")).toBe(before);
    expect(await kb.setStatus("d", "verified")).toMatchObject({ kind: "done", changed: true });
    expect(await kb.setStatus("d", "disputed")).toMatchObject({ kind: "done", changed: true });
  });

  it("checkTransition: superseded is terminal, disputed → verified | superseded, every status may be disputed or superseded", () => {
    const statuses = Object.keys(TRANSITIONS) as EntryStatus[];
    for (const from of statuses) {
      expect(checkTransition(from, from)).toEqual({ ok: true });
      if (from !== "superseded") {
        expect(checkTransition(from, "superseded").ok).toBe(true);
        if (from !== "disputed") expect(checkTransition(from, "disputed").ok).toBe(true);
      }
    }
    for (const to of statuses.filter((s) => s !== "superseded")) {
      expect(checkTransition("superseded", to)).toEqual({ ok: false, reason: "status superseded is terminal; write a new entry instead of reviving a superseded one" });
    }
    expect(statuses.filter((to) => to !== "disputed" && checkTransition("disputed", to).ok)).toEqual(["verified", "superseded"]);
    expect(checkTransition("verified", "hypothesis").ok).toBe(false);
  });
});
