/**
 * `cairn diff` reads cairn.config.json at each revision as the loader does: a symbolic link followed inside that
 * revision, a BOM dropped. A change that switches a gating rule off fails the diff; other loosening is a warning.
 * Real git, the real CLI process.
 */
import { symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, tempRepo, type TempRepo } from "./repo.js";

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

type Diff = { config?: { before: { link?: string }; after: { link?: string }; changes: Array<{ key: string; to?: unknown; effect?: string }> }; problems: Array<{ file: string; line: number; rule: string; severity: string }>; warnings: string[] };

async function diffOf(r: TempRepo, range: string): Promise<{ code: number; text: string; json: Diff }> {
  const text = await cairn(["--root", r.dir, "diff", range]);
  const json = await cairn(["--root", r.dir, "diff", range, "--json"]);
  expect(json.code).toBe(text.code);
  return { code: text.code, text: text.stdout, json: JSON.parse(json.stdout) as Diff };
}

async function base(config: string): Promise<TempRepo> {
  repo = await tempRepo();
  await repo.write("knowledge/a.md", entryText({ finding: "Entry a." }));
  await repo.write("cairn.config.json", config);
  repo.commit("base");
  return repo;
}

describe("cairn diff: cairn.config.json as the loader reads it", () => {
  it("a config moved behind a link, then an edit of the link's target that switches the prompt-injection gate off", async () => {
    const r = await base(JSON.stringify({ embedder: { provider: "none" } }, null, 2));
    r.git("checkout", "-q", "-b", "move");
    r.git("mv", "cairn.config.json", "docs-settings.json");
    await r.write("docs/settings.json", JSON.stringify({ embedder: { provider: "none" } }, null, 2));
    await unlink(path.join(r.dir, "docs-settings.json"));
    await symlink("docs/settings.json", path.join(r.dir, "cairn.config.json"));
    r.commit("move the config behind a link");

    // The move itself: the same settings, now read from docs/settings.json — not "it is now not valid JSON".
    const moved = await diffOf(r, "main...move");
    expect(moved.code).toBe(0);
    expect(moved.text).not.toMatch(/not valid JSON/);
    expect(moved.json.warnings).toEqual([expect.stringContaining("cairn.config.json (a link to docs/settings.json) changed (edited): it is now a symbolic link to docs/settings.json")]);
    expect(moved.json.config).toMatchObject({ before: {}, after: { link: "docs/settings.json" }, changes: [] });
    expect(moved.json.problems).toEqual([]);

    // A later pull request edits only the target: cairn.config.json's blob (the link) is unchanged.
    r.git("checkout", "-q", "-b", "weaken");
    await r.write("docs/settings.json", JSON.stringify({ embedder: { provider: "none" }, rules: { "prompt-injection": "off" } }, null, 2));
    r.commit("relax the rules");
    const weakened = await diffOf(r, "move...weaken");
    expect(weakened.code).toBe(1);
    expect(weakened.json.config?.changes).toEqual([expect.objectContaining({ key: "rules.prompt-injection", to: "off", effect: "weakens-gate" })]);
    expect(weakened.json.problems).toEqual([expect.objectContaining({ file: "docs/settings.json", line: 6, rule: "config-gate-weakened", severity: "error" })]);
    expect(weakened.text).toMatch(/### Problems \(1\)\n\n- ❌ `docs\/settings\.json:6` `config-gate-weakened` cairn\.config\.json \(a link to docs\/settings\.json\): rules\.prompt-injection "error" \(default\) → "off": prompt-injection is a gating rule/);
    expect(weakened.text).toContain("cairn.config.json (a link to docs/settings.json) changed (edited): ⚠️ one change lets more through: rules.prompt-injection");
  });

  it("a config with a UTF-8 BOM that switches a gating rule off is read, not called invalid JSON; a BOM alone changes nothing", async () => {
    const r = await base(JSON.stringify({ embedder: { provider: "none" } }));
    r.git("checkout", "-q", "-b", "bom");
    await r.write("cairn.config.json", `\uFEFF${JSON.stringify({ embedder: { provider: "none" } })}`);
    r.commit("a Windows editor saved it");
    const bomOnly = await diffOf(r, "main...bom");
    expect(bomOnly).toMatchObject({ code: 0, json: { warnings: [], problems: [] } });
    expect(bomOnly.text).toContain("No knowledge changes.");

    await r.write("cairn.config.json", `\uFEFF${JSON.stringify({ embedder: { provider: "none" }, rules: { "secret-github-token": "warning", "anchor-unresolved": "off" } })}`);
    r.commit("relax the rules");
    const d = await diffOf(r, "main...bom");
    expect(d.code).toBe(1);
    expect(d.text).not.toMatch(/not valid JSON/);
    expect(d.json.config?.changes.map((c) => [c.key, c.to, c.effect])).toEqual([
      ["rules.anchor-unresolved", "off", "weakens"],
      ["rules.secret-github-token", "warning", "weakens-gate"],
    ]);
    expect(d.json.problems.map((p) => [p.file, p.rule, p.severity])).toEqual([
      ["cairn.config.json", "config-weakened", "warning"],
      ["cairn.config.json", "config-gate-weakened", "error"],
    ]);
  });

  it("tightening a rule or lowering decayAfterRuns is listed without alarm", async () => {
    const r = await base(JSON.stringify({ embedder: { provider: "none" }, decayAfterRuns: 12 }));
    await r.write("cairn.config.json", JSON.stringify({ embedder: { provider: "none" }, decayAfterRuns: 8, rules: { "frontmatter-unknown-key": "error" } }));
    r.commit("stricter");
    const d = await diffOf(r, "HEAD~1...HEAD");
    expect(d.code).toBe(0);
    expect(d.json.problems).toEqual([]);
    expect(d.json.warnings).toEqual([expect.stringMatching(/^cairn\.config\.json changed \(edited\): decayAfterRuns 12 → 8; rules\.frontmatter-unknown-key "warning" \(default\) → "error" — /)]);
  });
});
