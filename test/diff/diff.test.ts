import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { diffFails, diffKnowledge, renderDiffMarkdown, type DiffEntry, type KnowledgeDiff } from "../../src/diff/index.js";
import { CairnError } from "../../src/errors.js";
import { layoutFor } from "../../src/store/layout.js";
import { entryText, ledgerLine, tempDir, tempRepo, type TempRepo } from "./repo.js";

const TODAY = "2026-03-01";
const LEDGER = "knowledge/.ledger/2026-02.jsonl";

let repo: TempRepo;
let base: string;
let head: string;
let diff: KnowledgeDiff;

function byId(d: KnowledgeDiff): Map<string, DiffEntry> {
  const all = [...d.added, ...d.edited, ...d.confirmed, ...d.archived, ...d.restored, ...d.retracted, ...d.renamed];
  return new Map(all.map((e) => [e.id, e]));
}

beforeAll(async () => {
  repo = await tempRepo();
  const w = repo.write;
  await w("knowledge/README.md", "What this directory is.\n");
  await w("knowledge/keep.md", entryText({ finding: "Unchanged entry stays out of the diff." }));
  await w("knowledge/edit-me.md", entryText({ finding: "Old finding about retries." }));
  await w("knowledge/confirm-me.md", entryText({ finding: "Confirmed entry.", provenance: "primed" }));
  await w("knowledge/archive-me.md", entryText({ finding: "Entry that decays." }));
  await w("knowledge/retract-me.md", entryText({ finding: "A false positive that gets deleted." }));
  await w("knowledge/rename-me.md", entryText({ finding: "Entry whose file gets renamed without any change." }));
  await w("knowledge/break-me.md", entryText({ finding: "Entry that a PR breaks." }));
  await w("knowledge/meta-me.md", entryText({ finding: "Entry whose tags change.", extra: "tags: [a]\n" }));
  await w("knowledge/fmt-me.md", entryText({ finding: "Entry reflowed\nover two lines." }));
  await w("knowledge/archive/restore-me.md", entryText({ finding: "Archived entry that recurs.", extra: "archived: 2026-01-20\narchivedReason: decayed\n" }));
  await w(
    LEDGER,
    ledgerLine({ type: "injected", run: "r0", agent: "sec", entries: ["edit-me"], time: "2026-01-01T10:00:00.000Z" }) +
      ledgerLine({ type: "injected", run: "r0b", agent: "sec", entries: ["rename-me"], time: "2026-01-10T10:00:00.000Z" }),
  );
  await w("src/handler.ts", "export {};\n");
  base = repo.commit("base");

  repo.git("checkout", "-q", "-b", "feature");
  await w("knowledge/new-entry.md", entryText({ finding: "A brand new heuristic about `fetch()` timeouts, see @alice and #12." }));
  await w("knowledge/edit-me.md", entryText({ finding: "New finding about retries.", verify: "Run the retry test twice." }));
  await w("knowledge/confirm-me.md", entryText({ finding: "Confirmed entry.", lastConfirmed: "2026-02-12", provenance: "independent" }));
  await repo.remove("knowledge/archive-me.md");
  await w("knowledge/archive/archive-me.md", entryText({ finding: "Entry that decays.", extra: "archived: 2026-02-10\narchivedReason: injected in 10 runs without independent confirmation\n" }));
  await repo.remove("knowledge/archive/restore-me.md");
  await w("knowledge/restore-me.md", entryText({ finding: "Archived entry that recurs.", lastConfirmed: "2026-02-12" }));
  await repo.remove("knowledge/retract-me.md");
  await rename(path.join(repo.dir, "knowledge/rename-me.md"), path.join(repo.dir, "knowledge/renamed-entry.md"));
  await w("knowledge/break-me.md", "---\nlastConfirmed: [2026\n---\nEntry that a PR breaks.\n");
  await w("knowledge/meta-me.md", entryText({ finding: "Entry whose tags change.", extra: "tags: [a, b]\n" }));
  await w("knowledge/fmt-me.md", entryText({ finding: "Entry reflowed over two lines." }));
  await w("knowledge/README.md", "What this directory is, reworded.\n");
  await appendFile(
    path.join(repo.dir, LEDGER),
    [
      ledgerLine({ type: "injected", run: "r1", agent: "sec", entries: ["edit-me", "confirm-me"], time: "2026-02-13T10:00:00.000Z" }),
      ledgerLine({ type: "injected", run: "r2", agent: "sec", entries: ["edit-me"], time: "2026-02-14T10:00:00.000Z" }),
      ledgerLine({ type: "confirmed", run: "r2", agent: "sec", entry: "confirm-me", provenance: "independent", time: "2026-02-14T10:05:00.000Z" }),
      ledgerLine({ type: "archived", entry: "archive-me", reason: "decayed", time: "2026-02-14T11:00:00.000Z" }),
    ].join(""),
  );
  head = repo.commit("feature");
  const layout = layoutFor(repo.dir, DEFAULT_CONFIG);
  diff = await diffKnowledge(layout, DEFAULT_CONFIG, "main", "feature", { today: TODAY });
});

afterAll(async () => {
  await repo.cleanup();
});

describe("diffKnowledge between two commits", () => {
  it("resolves both revisions and lists each changed entry once, under its most significant kind, by id", () => {
    expect(diff.base).toBe("main");
    expect(diff.head).toBe("feature");
    expect(diff.baseCommit).toBe(base);
    expect(diff.headCommit).toBe(head);
    expect(diff.added.map((e) => e.id)).toEqual(["new-entry"]);
    expect(diff.edited.map((e) => e.id)).toEqual(["break-me", "edit-me", "fmt-me", "meta-me"]);
    expect(diff.confirmed.map((e) => e.id)).toEqual(["confirm-me"]);
    expect(diff.archived.map((e) => e.id)).toEqual(["archive-me"]);
    expect(diff.restored.map((e) => e.id)).toEqual(["restore-me"]);
    expect(diff.retracted.map((e) => e.id)).toEqual(["retract-me"]);
    expect(diff.renamed.map((e) => e.id)).toEqual(["renamed-entry"]);
    expect(byId(diff).has("keep")).toBe(false);
    expect(diff.warnings).toEqual([]);
  });

  it("says which parts of an edited entry changed and carries HEAD's decay counter", () => {
    const e = byId(diff);
    expect(e.get("edit-me")).toMatchObject({ kinds: ["edited"], sections: ["finding", "verify"], finding: "New finding about retries.", decay: { unconfirmedRuns: 2, decayAfterRuns: 10, nearDecay: false } });
    expect(e.get("meta-me")).toMatchObject({ kinds: ["edited"], metadata: ["tags"] });
    expect(e.get("meta-me")?.sections).toBeUndefined();
    expect(e.get("fmt-me")).toMatchObject({ kinds: ["edited"], formattingOnly: true });
  });

  it("reports confirmation, archive and restore with their dates, provenance and reason", () => {
    const e = byId(diff);
    expect(e.get("confirm-me")).toMatchObject({ kinds: ["confirmed"], confirmedFrom: "2026-01-02", lastConfirmed: "2026-02-12", provenance: "independent", decay: { unconfirmedRuns: 0 } });
    expect(e.get("archive-me")).toMatchObject({
      kinds: ["archived"],
      path: "knowledge/archive/archive-me.md",
      previousPath: "knowledge/archive-me.md",
      state: "archived",
      archived: "2026-02-10",
      archivedReason: "injected in 10 runs without independent confirmation",
    });
    expect(e.get("archive-me")?.decay).toBeUndefined();
    expect(e.get("restore-me")).toMatchObject({ kinds: ["restored", "confirmed"], state: "active", previousPath: "knowledge/archive/restore-me.md", confirmedFrom: "2026-01-02", lastConfirmed: "2026-02-12" });
    expect(e.get("restore-me")?.metadata).toBeUndefined();
  });

  it("pairs a renamed file with its old id, and reports a retraction from BASE's facts", () => {
    const e = byId(diff);
    expect(e.get("renamed-entry")).toMatchObject({ kinds: ["renamed"], previousId: "rename-me", previousPath: "knowledge/rename-me.md" });
    expect(e.get("retract-me")).toMatchObject({ kinds: ["retracted"], path: "knowledge/retract-me.md", state: "active", lastConfirmed: "2026-01-02", finding: "A false positive that gets deleted." });
  });

  it("reports a file that no longer parses at HEAD without crashing, with BASE's finding as context", () => {
    const broken = byId(diff).get("break-me");
    expect(broken).toMatchObject({ kinds: ["edited"], unparsable: "head", finding: "Entry that a PR breaks." });
    expect(broken?.errors?.[0]).toMatch(/^line \d+: invalid YAML/);
    expect(broken?.decay).toBeUndefined();
  });

  it("counts the ledger events added on the branch by type", () => {
    expect(diff.ledger).toEqual({ archived: 1, confirmed: 1, injected: 2 });
    // What those events do, per entry they name: the archive event moves no counter, so archive-me is not listed.
    expect(diff.ledgerEffects.map((e) => [e.id, e.before.unconfirmedRuns, e.after.unconfirmedRuns, e.after.independent, e.flag])).toEqual([
      ["confirm-me", 0, 0, 1, undefined],
      ["edit-me", 0, 2, 0, undefined],
    ]);
    expect(diff.problems).toEqual([]);
  });

  it("renders a markdown summary for a PR comment", () => {
    const md = renderDiffMarkdown(diff);
    const lines = md.split("\n");
    expect(lines[0]).toBe("## Knowledge changes (main..feature)");
    expect(lines[2]).toBe("**1 added · 1 retracted · 1 restored · 1 archived · 4 edited · 1 confirmed · 1 renamed** · ledger: +4 events (1 archived, 1 confirmed, 2 injected)");
    expect(md).toContain("⚠️ 1 changed entry has errors at feature — run `cairn check`.");
    expect(md).toContain("### Edited (4)\n\n- `break-me` · `knowledge/break-me.md` — Entry that a PR breaks. — edited; ⚠️ does not parse: line ");
    expect(md).toContain("- `edit-me` · `knowledge/edit-me.md` — New finding about retries. — finding and verify edited; last confirmed 2026-01-02; decay 2/10");
    expect(md).toContain("- `confirm-me` · `knowledge/confirm-me.md` — Confirmed entry. — lastConfirmed 2026-01-02 → 2026-02-12 (independent); decay 0/10");
    expect(md).toContain("— archived 2026-02-10: “injected in 10 runs without independent confirmation”");
    expect(md).toContain("— restored from `knowledge/archive/restore-me.md`; lastConfirmed 2026-01-02 → 2026-02-12 (independent); decay 0/10");
    expect(md).toContain("- `retract-me` · `knowledge/retract-me.md` — A false positive that gets deleted. — deleted; was last confirmed 2026-01-02");
    expect(md).toContain("- `renamed-entry` · `knowledge/renamed-entry.md` — Entry whose file gets renamed without any change. — id renamed from `rename-me`");
    // The rename starts its decay counter again: the comment says so, and how to keep the history.
    expect(md).toContain("⚠️ its ledger history stays with `rename-me` (decay 1/10 there; it starts again at 0): add `id: rename-me` to the frontmatter to keep it");
    expect(md).toContain("— metadata changed: tags;");
    expect(md).toContain("— formatting only;");
    // The finding keeps its code span; mentions and issue references are defused.
    expect(md).toContain("A brand new heuristic about `fetch()` timeouts, see @&#8203;alice and #&#8203;12. — new entry; lastConfirmed 2026-01-02 (independent); decay 0/10");
    const sections = lines.filter((l) => l.startsWith("### "));
    expect(sections).toEqual(["### Added (1)", "### Retracted (1)", "### Restored (1)", "### Archived (1)", "### Edited (4)", "### Confirmed (1)", "### Renamed (1)", "### Decay counters moved by new ledger events (2)"]);
    expect(md).toContain("- `confirm-me` · decay 0/10; independent confirmations 0 → 1 — 2 new events (1 confirmed, 1 injected) from 2 runs (r1, r2)\n- `edit-me` · decay 0/10 → 2/10 — 2 new events (2 injected) from 2 runs (r1, r2)\n");
  });

  it("accepts BASE..HEAD and BASE...HEAD (merge base) as one argument", async () => {
    const layout = layoutFor(repo.dir, DEFAULT_CONFIG);
    const two = await diffKnowledge(layout, DEFAULT_CONFIG, "main..feature", undefined, { today: TODAY });
    expect(two.headCommit).toBe(head);
    expect(two.added.map((e) => e.id)).toEqual(["new-entry"]);
    // Move main forward with an unrelated entry: the three-dot form ignores it, the two-dot form shows it as retracted.
    repo.git("checkout", "-q", "main");
    await repo.write("knowledge/main-only.md", entryText({ finding: "Landed on main after the branch point." }));
    repo.commit("main moves on");
    repo.git("checkout", "-q", "feature");
    const three = await diffKnowledge(layout, DEFAULT_CONFIG, "main...feature", undefined, { today: TODAY });
    expect(three.baseCommit).toBe(base);
    expect(three.retracted.map((e) => e.id)).toEqual(["retract-me"]);
    const direct = await diffKnowledge(layout, DEFAULT_CONFIG, "main", "feature", { today: TODAY });
    expect(direct.retracted.map((e) => e.id)).toEqual(["main-only", "retract-me"]);
  });
});

describe("diffKnowledge against the working tree", () => {
  it("includes uncommitted edits and untracked new entries, and reads the ledger from disk", async () => {
    const local = await tempRepo();
    try {
      await local.write("knowledge/a.md", entryText({ finding: "Entry a." }));
      await local.write("knowledge/b.md", entryText({ finding: "Entry b." }));
      local.commit("base");
      await local.write("knowledge/a.md", entryText({ finding: "Entry a, edited but not committed." }));
      await local.write("knowledge/c.md", entryText({ finding: "Untracked new entry." }));
      await local.write("knowledge/.ledger/x.jsonl", ledgerLine({ type: "injected", run: "r1", agent: "s", entries: ["a"], time: "2026-02-01T00:00:00.000Z" }));
      await writeFile(path.join(local.dir, "knowledge/b.md"), await readFile(path.join(local.dir, "knowledge/b.md"))); // same bytes, newer mtime
      const d = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
      expect(d.head).toBe("working tree");
      expect(d.headCommit).toBeUndefined();
      expect(d.edited.map((e) => [e.id, e.sections, e.decay])).toEqual([["a", ["finding"], { unconfirmedRuns: 1, decayAfterRuns: 10, nearDecay: false }]]);
      expect(d.added.map((e) => e.id)).toEqual(["c"]);
      expect(d.ledger).toEqual({ injected: 1 });
      expect(renderDiffMarkdown(d).split("\n")[0]).toBe("## Knowledge changes (HEAD..working tree)");
    } finally {
      await local.cleanup();
    }
  });

  it("says 'No knowledge changes.' when nothing changed, and honours a project root below the git top level and a custom knowledgeDir", async () => {
    const local = await tempRepo();
    try {
      const config = { ...DEFAULT_CONFIG, knowledgeDir: "kb" };
      await local.write("tools/review/kb/a.md", entryText());
      await local.write("tools/review/kb/archive/z.md", entryText({ extra: "archived: 2026-01-05\narchivedReason: old\n" }));
      await local.write("kb/outside.md", entryText());
      local.commit("base");
      const layout = layoutFor(path.join(local.dir, "tools/review"), config);
      const none = await diffKnowledge(layout, config, "HEAD", undefined, { today: TODAY });
      expect(renderDiffMarkdown(none)).toBe("## Knowledge changes (HEAD..working tree)\n\nNo knowledge changes.\n");

      await local.remove("tools/review/kb/archive/z.md");
      await local.write("tools/review/kb/z.md", entryText({ lastConfirmed: "2026-02-20" }));
      await local.remove("kb/outside.md");
      const d = await diffKnowledge(layout, config, "HEAD", undefined, { today: TODAY });
      expect(d.restored.map((e) => [e.id, e.path, e.previousPath])).toEqual([["z", "kb/z.md", "kb/archive/z.md"]]);
      expect(d.retracted).toEqual([]);
    } finally {
      await local.cleanup();
    }
  });

  it("reports removed ledger lines as an error of the change (the ledger is append-only)", async () => {
    const local = await tempRepo();
    try {
      await local.write("knowledge/.ledger/x.jsonl", ledgerLine({ type: "retracted", entry: "a", time: "2026-02-01T00:00:00.000Z" }) + ledgerLine({ type: "retracted", entry: "b", time: "2026-02-01T00:00:00.000Z" }));
      local.commit("base");
      await local.write("knowledge/.ledger/x.jsonl", ledgerLine({ type: "injected", run: "r", agent: "s", entries: ["a"], time: "2026-02-02T00:00:00.000Z" }));
      const d = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
      expect(d.ledger).toEqual({ injected: 1 });
      expect(d.warnings).toEqual([]);
      expect(d.problems).toEqual([expect.objectContaining({ file: "knowledge/.ledger/x.jsonl", rule: "ledger-event-removed", severity: "error", message: expect.stringContaining("2 ledger events were removed from knowledge/.ledger/x.jsonl") })]);
      expect(renderDiffMarkdown(d)).toContain(
        "No entry changes. ledger: +1 event (1 injected)\n\n### Decay counters moved by new ledger events (1)\n\n- `a` (no entry has this id) · decay 0/10 → 1/10 — 1 new event (1 injected) from 1 run (r)\n\n### Problems (1)\n\n- ❌ `knowledge/.ledger/x.jsonl:1` `ledger-event-removed` 2 ledger events were removed",
      );
    } finally {
      await local.cleanup();
    }
  });
});

describe("diffKnowledge: a committed change log", () => {
  it("warns about files in knowledge/.pending/ that a commit carries (at HEAD, and in the index against the working tree), never about local ones", async () => {
    const local = await tempRepo();
    try {
      await local.write("knowledge/a.md", entryText({ finding: "Entry a." }));
      local.commit("base");
      // A local log of a running change (gitignored by cairn init) is no one's business.
      await local.write("knowledge/.pending/a.lock", "{}");
      const clean = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
      expect(clean.warnings).toEqual([]);
      await local.write("knowledge/.pending/a.json", JSON.stringify({ v: 1, key: "a", owner: { pid: 999999, host: "ci-runner" }, created: "", steps: [{ kind: "delete", path: "knowledge/a.md" }] }));
      local.git("add", "-f", "knowledge/.pending/a.json");
      const message = "knowledge/.pending/a.json is committed: files in knowledge/.pending/ are a running change's log or lock, local to one machine — cairn never applies a committed one; remove it from the change";
      const staged = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
      expect(staged.warnings).toEqual([message]);
      await local.remove("knowledge/.pending/a.lock");
      const head = local.commit("a pull request");
      const committed = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD~1", head, { today: TODAY });
      expect(committed.warnings).toEqual([message]);
      expect(renderDiffMarkdown(committed)).toContain("### Warnings\n\n- ⚠️ knowledge/.pending/a.json is committed");
    } finally {
      await local.cleanup();
    }
  });
});

describe("diffKnowledge: the configuration", () => {
  it("a pull request that changes only cairn.config.json says which keys changed, from what to what; formatting alone says nothing", async () => {
    const local = await tempRepo();
    try {
      await local.write("knowledge/a.md", entryText({ finding: "Entry a." }));
      await local.write("cairn.config.json", JSON.stringify({ maxPerAgent: 5 }));
      const base = local.commit("base");
      await local.write("cairn.config.json", JSON.stringify({ maxPerAgent: 5 }, null, 2));
      const formatting = local.commit("reformat");
      expect((await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, base, formatting, { today: TODAY })).warnings).toEqual([]);
      await local.write("cairn.config.json", JSON.stringify({ maxPerAgent: 7, knowledgeDir: "docs/guide" }));
      const head = local.commit("a pull request");
      const d = await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, base, head, { today: TODAY });
      expect(d.warnings).toEqual([
        'cairn.config.json changed (edited): ⚠️ one change lets more through: knowledgeDir "knowledge" (default) → "docs/guide"; also maxPerAgent 5 → 7 — the configuration decides where entries are, which rules keep an entry out of prompts and how many an agent gets; review it like code',
      ]);
      expect(d.config?.changes.map((c) => [c.key, c.from, c.to, c.effect])).toEqual([
        ["knowledgeDir", undefined, "docs/guide", "weakens"],
        ["maxPerAgent", 5, 7, undefined],
      ]);
      // Moving the knowledge dir is a warning at its line (no error: the diff exits 0).
      expect(d.problems).toEqual([expect.objectContaining({ file: "cairn.config.json", line: 1, rule: "config-weakened", severity: "warning" })]);
      expect(diffFails(d)).toBe(false);
      expect(renderDiffMarkdown(d)).toContain("### Warnings\n\n- ⚠️ cairn.config.json changed (edited): ⚠️ one change lets more through: knowledgeDir");
      // Against the working tree, an uncommitted edit counts too.
      await local.write("cairn.config.json", JSON.stringify({ maxPerAgent: 3 }));
      expect((await diffKnowledge(layoutFor(local.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY })).warnings).toEqual([
        expect.stringMatching(/^cairn\.config\.json changed \(edited\): ⚠️ one change lets more through: knowledgeDir "docs\/guide" → "knowledge" \(default\); also maxPerAgent 7 → 3 — /),
      ]);
    } finally {
      await local.cleanup();
    }
  });
});

describe("diffKnowledge errors", () => {
  it("rejects an unknown revision with a USAGE error that says what is expected", async () => {
    const layout = layoutFor(repo.dir, DEFAULT_CONFIG);
    const error = await diffKnowledge(layout, DEFAULT_CONFIG, "mian").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CairnError);
    expect(error).toMatchObject({ code: "USAGE", message: expect.stringContaining("unknown revision 'mian': expected a branch, tag or commit, e.g. origin/main") });
    await expect(diffKnowledge(layout, DEFAULT_CONFIG, "main", "nope")).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("'nope'") });
    await expect(diffKnowledge(layout, DEFAULT_CONFIG, "--output=/tmp/x")).rejects.toMatchObject({ code: "USAGE" });
    await expect(diffKnowledge(layout, DEFAULT_CONFIG, "main..feature", "HEAD")).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("either BASE HEAD or BASE..HEAD") });
  });

  it("rejects a directory outside any git repository with a USAGE error", async () => {
    const dir = await tempDir("cairn-diff-nogit-");
    try {
      await mkdir(path.join(dir, "knowledge"));
      const error = await diffKnowledge(layoutFor(dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "main").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "USAGE", message: expect.stringContaining("is not inside a git repository") });
    } finally {
      const { rm } = await import("node:fs/promises");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
