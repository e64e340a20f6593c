import { describe, expect, it } from "vitest";
import { parseEntry } from "../../src/entry/parse.js";
import type { EntryState } from "../../src/entry/types.js";
import { groupByKind, planDiff, type EntryVersion } from "../../src/diff/plan.js";
import { entryText, type EntryText } from "./repo.js";

const TODAY = "2026-03-01";

function version(path: string, text: string | EntryText, state: EntryState = path.includes("/archive/") ? "archived" : "active"): EntryVersion {
  const raw = typeof text === "string" ? text : entryText(text);
  const result = parseEntry(Buffer.from(raw), { file: path, state, today: TODAY });
  return {
    path,
    state,
    hash: raw,
    errors: result.diagnostics.filter((d) => d.severity === "error").map((d) => `line ${d.line}: ${d.message}`),
    ...(result.entry ? { entry: result.entry } : {}),
  };
}

describe("planDiff", () => {
  it("leaves out files whose content and place did not change (e.g. a stat-dirty working tree file)", () => {
    const v = version("knowledge/a.md", {});
    expect(planDiff({ before: [v], after: [{ ...v }] }).entries).toEqual([]);
  });

  it("treats a backwards lastConfirmed and a provenance-only change as metadata, not as a confirmation", () => {
    const plan = planDiff({
      before: [version("knowledge/a.md", { lastConfirmed: "2026-02-01" }), version("knowledge/b.md", { provenance: "independent" })],
      after: [version("knowledge/a.md", { lastConfirmed: "2026-01-15" }), version("knowledge/b.md", { provenance: "primed" })],
    });
    expect(plan.entries.map((e) => [e.id, e.kinds, e.metadata, e.confirmedFrom])).toEqual([
      ["a", ["edited"], ["lastConfirmed"], undefined],
      ["b", ["edited"], ["provenance"], undefined],
    ]);
  });

  it("combines kinds on one entry, most significant first: archived + edited + confirmed", () => {
    const plan = planDiff({
      before: [version("knowledge/a.md", { finding: "Old.", lastConfirmed: "2026-01-01" })],
      after: [version("knowledge/archive/a.md", { finding: "New.", lastConfirmed: "2026-02-01", extra: "archived: 2026-02-02\narchivedReason: superseded by b\n" })],
    });
    const [entry] = plan.entries;
    expect(entry).toMatchObject({ id: "a", kinds: ["archived", "edited", "confirmed"], sections: ["finding"], archivedReason: "superseded by b", confirmedFrom: "2026-01-01" });
    expect(entry?.metadata).toBeUndefined();
    expect(groupByKind(plan.entries).archived).toEqual([entry]);
    expect(groupByKind(plan.entries).edited).toEqual([]);
  });

  it("reports a changed archivedReason on an entry that stays archived as metadata", () => {
    const extra = (reason: string) => `archived: 2026-02-02\narchivedReason: ${reason}\n`;
    const plan = planDiff({ before: [version("knowledge/archive/a.md", { extra: extra("old") })], after: [version("knowledge/archive/a.md", { extra: extra("clearer reason") })] });
    expect(plan.entries.map((e) => [e.kinds, e.metadata])).toEqual([[["edited"], ["archivedReason"]]]);
  });

  it("keys by frontmatter id, so renaming a file that carries an id is a plain rename", () => {
    const plan = planDiff({ before: [version("knowledge/old-name.md", { extra: "id: stable\n" })], after: [version("knowledge/new-name.md", { extra: "id: stable\n" })] });
    expect(plan.entries).toEqual([expect.objectContaining({ id: "stable", kinds: ["renamed"], previousPath: "knowledge/old-name.md", path: "knowledge/new-name.md" })]);
    expect(plan.entries[0]?.previousId).toBeUndefined();
  });

  it("pairs an id rename by identical body when git did not report it, but not when two candidates share the body", () => {
    const one = planDiff({ before: [version("knowledge/a.md", { finding: "Same body." })], after: [version("knowledge/b.md", { finding: "Same body.", lastConfirmed: "2026-02-01" })] });
    expect(one.entries.map((e) => [e.id, e.kinds, e.previousId])).toEqual([["b", ["confirmed", "renamed"], "a"]]);

    const ambiguous = planDiff({
      before: [version("knowledge/a.md", { finding: "Same body." })],
      after: [version("knowledge/b.md", { finding: "Same body." }), version("knowledge/c.md", { finding: "Same body." })],
    });
    expect(ambiguous.entries.map((e) => [e.id, e.kinds[0]])).toEqual([["a", "retracted"], ["b", "added"], ["c", "added"]]);
  });

  it("pairs git's rename pairs even when the body changed", () => {
    const plan = planDiff({
      before: [version("knowledge/a.md", { finding: "Before." })],
      after: [version("knowledge/b.md", { finding: "After." })],
      renames: [{ from: "knowledge/a.md", to: "knowledge/b.md" }],
    });
    expect(plan.entries.map((e) => [e.id, e.kinds, e.previousId, e.sections])).toEqual([["b", ["edited", "renamed"], "a", ["finding"]]]);
  });

  it("warns about an id used twice at HEAD and keeps the first path", () => {
    const plan = planDiff({ before: [], after: [version("knowledge/x.md", {}), version("knowledge/archive/x.md", {})] });
    expect(plan.entries.map((e) => e.path)).toEqual(["knowledge/archive/x.md"]);
    expect(plan.warnings).toEqual([expect.stringContaining('id "x" is used by both knowledge/archive/x.md and knowledge/x.md at HEAD')]);
  });

  it("marks which side does not parse and still classifies the move", () => {
    const broken = "no frontmatter at all\n";
    const plan = planDiff({
      before: [version("knowledge/fixed.md", broken), version("knowledge/gone.md", broken), version("knowledge/moved.md", {})],
      after: [version("knowledge/fixed.md", {}), version("knowledge/new.md", broken), version("knowledge/archive/moved.md", broken)],
    });
    expect(plan.entries.map((e) => [e.id, e.kinds, e.unparsable])).toEqual([
      ["fixed", ["edited"], "base"],
      ["gone", ["retracted"], "base"],
      ["moved", ["archived", "edited"], "head"],
      ["new", ["added"], "head"],
    ]);
    expect(plan.entries.find((e) => e.id === "new")?.errors?.[0]).toMatch(/^line 1: expected the file to start with a `---` line/);
    expect(plan.entries.find((e) => e.id === "gone")?.errors).toBeUndefined();
  });

  it("reports entries that have errors at HEAD but still parse, with their diagnostics", () => {
    const plan = planDiff({ before: [], after: [version("knowledge/a.md", "---\nlastConfirmed: 2026-01-01\nprovenance: independent\n---\nA finding without evidence.\n")] });
    expect(plan.entries[0]).toMatchObject({ id: "a", kinds: ["added"], finding: "A finding without evidence." });
    expect(plan.entries[0]?.unparsable).toBeUndefined();
    expect(plan.entries[0]?.errors?.some((e) => e.includes("no evidence"))).toBe(true);
  });
});
