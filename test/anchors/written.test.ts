/** Anchors people actually write: paths mid-sentence, bare file names, sibling repositories, Fix: sections. */
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyAnchorEdits, planAnchorEdits } from "../../src/anchors/fix.js";
import { parseAnchors } from "../../src/entry/anchors.js";
import { parseEntry } from "../../src/entry/parse.js";
import { codeRepo, entryFile } from "./setup.js";

const summary = (report: { diagnostics: Array<{ rule: string; severity: string }> }) => report.diagnostics.map((d) => `${d.severity} ${d.rule}`);

describe("paths anywhere in evidence prose", () => {
  it("a path mid-sentence is an anchor (no more `evidence has no anchor`), and a missing one is reported", async () => {
    const repo = await codeRepo({
      "skills/flux-drive/SKILL.md": "# Flux drive\n\n## Merge table\n",
      "knowledge/merge.md": entryFile("the v2 merge listed agents absent from the merge table in skills/flux-drive/SKILL.md despite the roster."),
      "knowledge/gone.md": entryFile("the roster in skills/flux-drive/ROSTER.md lists agents that no longer exist."),
    });
    const report = await repo.kb.check();
    expect(report.diagnostics.map((d) => [d.file, d.rule])).toEqual([["knowledge/gone.md", "anchor-unresolved"]]);
  });
});

describe("bare file names", () => {
  it("resolve by basename when unique; `lib.sh — …` is no longer a missing root file", async () => {
    const repo = await codeRepo({
      "hooks/lib-sprint.sh": "sprint_create() {\n  bd set-state \"$id\" phase=x || true\n}\n",
      "knowledge/sprint.md": entryFile("sprint_create() in lib-sprint.sh originally used `|| true` on every set-state call."),
      "knowledge/lib.md": entryFile("lib-sprint.sh — the sprint helper; its calls suppress errors."),
    });
    expect((await repo.kb.check()).diagnostics).toEqual([]);
  });

  it("an ambiguous name is a warning listing the candidates; the word before it can narrow it", async () => {
    const repo = await codeRepo({
      "hooks/lib-gates.sh": "check_gate() {\n  :\n}\n",
      "vendor/interphase/lib-gates.sh": "check_gate() {\n  :\n}\n",
      "skills/executing-plans/SKILL.md": "# Executing plans\n",
      "skills/reviewing/SKILL.md": "# Reviewing\n",
      "knowledge/gates.md": entryFile("lib-gates.sh — the gate shim re-exports only some functions."),
      "knowledge/rules.md": entryFile("the rules were adapted in the executing-plans SKILL.md file."),
    });
    const report = await repo.kb.check();
    expect(report.diagnostics).toEqual([
      expect.objectContaining({
        file: "knowledge/gates.md",
        rule: "anchor-ambiguous",
        severity: "warning",
        message: expect.stringContaining("the file name lib-gates.sh matches 2 files (hooks/lib-gates.sh, vendor/interphase/lib-gates.sh)"),
      }),
    ]);
  });

  it("a bare name mentioned mid-sentence that names no file is not reported (prose, not an anchor); at the start it is", async () => {
    const repo = await codeRepo({
      "src/a.ts": "export const a = 1;\n",
      "knowledge/prose.md": entryFile("src/a.ts — the constant; the settings usually live in config.yaml in other projects."),
      "knowledge/first.md": entryFile("config.yaml — the settings file."),
    });
    expect((await repo.kb.check()).diagnostics.map((d) => [d.file, d.rule])).toEqual([["knowledge/first.md", "anchor-unresolved"]]);
  });
});

describe("anchors into another repository", () => {
  const files = {
    "src/a.ts": "export const a = 1;\n",
    "knowledge/up.md": entryFile("enforce_gate() existed in interphase lib-gates.sh (line 2) but not in our shim; see also interphase:hooks/lib-gates.sh:1-3."),
    "knowledge/bad.md": entryFile("interphase:hooks/missing.sh — never existed."),
  };

  it("with the sibling checkout configured and present, they are resolved there (real problems still reported)", async () => {
    const repo = await codeRepo(files, { repos: { interphase: "../interphase-checkout" } });
    const sibling = path.join(path.dirname(repo.dir), "interphase-checkout");
    await mkdir(path.join(sibling, "hooks"), { recursive: true });
    await writeFile(path.join(sibling, "hooks/lib-gates.sh"), "check_phase_gate() {\n  :\n}\nenforce_gate() {\n  check_phase_gate\n}\n");
    try {
      const report = await repo.kb.check();
      expect(report.diagnostics.map((d) => [d.file, d.rule, d.severity])).toEqual([["knowledge/bad.md", "anchor-unresolved", "error"]]);
      expect(report.diagnostics[0]!.message).toContain("in repository interphase (../interphase-checkout): hooks/missing.sh matches no file");
    } finally {
      await import("node:fs/promises").then((fs) => fs.rm(sibling, { recursive: true, force: true }));
    }
  });

  it("without a checkout they are reported as external, never as errors", async () => {
    const configured = await codeRepo(files, { repos: { interphase: "../no-such-checkout" } });
    const report = await configured.kb.check();
    expect(report.errors).toBe(0);
    expect(summary(report)).toEqual(["warning anchor-external", "warning anchor-external", "warning anchor-external"]);
    expect(report.diagnostics[0]!.message).toContain("whose checkout ../no-such-checkout is not present");

    const unconfigured = await codeRepo(files);
    const plain = await unconfigured.kb.check();
    // Without `repos`, `interphase lib-gates.sh (line 2)` names a file of this repository (an error that says how to point elsewhere);
    // `interphase:` anchors are external.
    expect(summary(plain)).toEqual(["warning anchor-external", "error anchor-unresolved", "warning anchor-external"]);
    expect(plain.diagnostics[0]!.message).toContain(`add \`"repos": {"interphase": "../interphase"}\``);
    expect(plain.diagnostics[1]!.message).toContain("if `interphase` is another repository, write interphase:lib-gates.sh or add it to `repos`");
  });

  it("a checkout outside the directory holding this repository (a hostile config's '/' or '../../..') is never read: nothing about its files is said", async () => {
    const secret = path.join(tmpdir(), `cairn-outside-${process.pid}.txt`);
    await writeFile(secret, "one\ntwo\nthree\n");
    try {
      const probe = { "knowledge/probe.md": entryFile(`host:${secret.slice(1)}:9999 — a line past the end.`) };
      for (const dir of ["../../../../../../../../..", "..", "."]) {
        const repo = await codeRepo(probe, { repos: { host: dir } });
        const report = await repo.kb.check();
        expect(summary(report)).toEqual(["warning anchor-external"]);
        expect(report.diagnostics[0]!.message).toMatch(/whose checkout \S+ is (outside the directory that holds this repository|this repository or a directory above it); cairn reads other repositories only in checkouts beside this one/);
        expect(report.diagnostics[0]!.message).not.toMatch(/lines|past the end|did you mean/);
      }
      const { resolveConfig } = await import("../../src/config.js");
      expect(() => resolveConfig({ repos: { host: "/" } })).toThrow('repos.host must be a checkout beside this repository, relative to the project root (got "/"), e.g. "../host"');
    } finally {
      await import("node:fs/promises").then((fs) => fs.rm(secret, { force: true }));
    }
  });
});

describe("Fix: paragraphs and sections", () => {
  const text = [
    "---",
    "lastConfirmed: 2026-02-12",
    "provenance: independent",
    "---",
    "Multi-step init with `|| true` leaves half-made resources behind.",
    "",
    "Fix: check critical writes and cancel the resource on failure:",
    "```bash",
    'bd set-state "$id" "phase=x" || {',
    "  echo 'Evidence: not a marker inside code'",
    "}",
    "```",
    "Reserve `|| true` for optional fields.",
    "",
    "Evidence: sprint_create() in hooks/lib-sprint.sh used `|| true` on every call.",
    "Verify: grep for `set-state.*|| true` in hooks/*.sh.",
    "",
  ].join("\n");

  it("is part of the entry but not the finding, and code in it is not evidence", () => {
    const { entry, diagnostics } = parseEntry(Buffer.from(text), { file: "knowledge/x.md", today: "2026-03-01" });
    expect(diagnostics).toEqual([]);
    expect(entry!.finding.text).toBe("Multi-step init with `|| true` leaves half-made resources behind.");
    expect(entry!.fix).toEqual({ text: expect.stringMatching(/^check critical writes[\s\S]*Reserve `\|\| true` for optional fields\.$/), line: 7 });
    expect(entry!.evidence.anchors.map((a) => [a.path, a.symbol])).toEqual([["hooks/lib-sprint.sh", "sprint_create"]]);
  });

  it("a `## Fix` section works the same, and the Knowledge Context shows it", async () => {
    const repo = await codeRepo({
      "hooks/lib-sprint.sh": "sprint_create() {\n  :\n}\n",
      "knowledge/init.md": text,
      "knowledge/headed.md": "---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\nShims hide new upstream functions from callers.\n\n## Fix\n\nAdd a wrapper that delegates when the upstream function exists.\n\n## Evidence\n\n- hooks/lib-sprint.sh:1-3 — the wrapper\n\n## Verify\n\n- grep for `sprint_create` in hooks/\n",
    });
    expect((await repo.kb.check()).diagnostics).toEqual([]);
    const injected = await repo.kb.inject({ run: "r1", agent: "a", keywords: ["init", "resources", "shims", "upstream", "wrapper"], dryRun: true });
    const byId = new Map(injected.entries.map((e) => [e.id, e]));
    expect(byId.get("headed")!.fix).toBe("Add a wrapper that delegates when the upstream function exists.");
    expect(byId.get("headed")!.finding).toBe("Shims hide new upstream functions from callers.");
    expect(injected.markdown).toContain("- Fix: Add a wrapper that delegates when the upstream function exists.");
  });
});

describe("check --fix edits (pure)", () => {
  const fixOf = (evidence: string, fix: { path?: string; range?: { start: number; end: number } }, rule: "anchor-moved" | "anchor-renamed" = fix.path ? "anchor-renamed" : "anchor-moved") => {
    const [anchor] = parseAnchors(evidence, 3, 11);
    return planAnchorEdits("k.md", [{ anchor: anchor!, status: "resolved", files: [], drifted: true, problems: [{ rule, severity: "warning", message: "", short: "", fix }] }]);
  };

  it.each([
    ["src/a.ts:52-61, f() — x", { range: { start: 92, end: 101 } }, ":52-61", ":92-101"],
    ["`src/a.ts#L52-L61` — x", { range: { start: 92, end: 101 } }, "#L52-L61", "#L92-L101"],
    ["src/a.ts, lines 52-61 — x", { range: { start: 92, end: 101 } }, ", lines 52-61", ", lines 92-101"],
    ["src/a.ts:52 — x", { range: { start: 92, end: 92 } }, ":52", ":92"],
    ["src/a.ts:52:7 — with a column", { range: { start: 92, end: 92 } }, ":52:7", ":92:7"],
    ["./old/a.ts:3 — x", { path: "new/a.ts" }, "./old/a.ts", "./new/a.ts"],
    ["old/dir/ — x", { path: "new/dir" }, "old/dir/", "new/dir/"],
  ] as const)("%s", (evidence, fix, from, to) => {
    expect(fixOf(evidence, fix).map((e) => [e.from, e.to])).toEqual([[from, to]]);
  });

  it("changes only the anchor bytes (CRLF, BOM and everything else stay) and refuses a file that changed", () => {
    const file = "\uFEFF---\r\nlastConfirmed: 2026-02-12\r\n---\r\nFinding.\r\n\r\nEvidence: src/a.ts:52-61, f() — x\r\nVerify: y\r\n";
    const [anchor] = parseAnchors("src/a.ts:52-61, f() — x", 6, 11);
    const edits = planAnchorEdits("k.md", [{ anchor: anchor!, status: "resolved", files: [], drifted: true, problems: [{ rule: "anchor-moved", severity: "warning", message: "", short: "", fix: { range: { start: 92, end: 101 } } }] }]);
    const applied = applyAnchorEdits(file, edits);
    expect(applied).toEqual({ ok: true, text: file.replace(":52-61", ":92-101") });
    expect(applyAnchorEdits(file.replace("52-61", "50-61"), edits)).toMatchObject({ ok: false, reason: expect.stringContaining("no longer reads `:52-61`") });
  });
});
