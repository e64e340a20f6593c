import { execFileSync } from "node:child_process";
import { readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const today = new Date().toISOString().slice(0, 10);

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });
}

async function project(files: Record<string, string> = {}): Promise<string> {
  return testdir({ "knowledge/.gitkeep": "", ...SOURCE_FILES, ...files });
}

describe("cairn init", () => {
  it("creates the layout and git settings, and is idempotent", async () => {
    const dir = await testdir({ ".gitignore": "node_modules/\r\n" });
    const first = await cairn(["init"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(await readdir(path.join(dir, "knowledge"))).toEqual(expect.arrayContaining(["archive", ".ledger"]));
    expect(await readFile(path.join(dir, ".gitattributes"), "utf8")).toBe("knowledge/.ledger/*.jsonl merge=union\n");
    expect(await readFile(path.join(dir, ".gitignore"), "utf8")).toBe("node_modules/\r\n.cairn/\r\nknowledge/.pending/\r\n");
    const snapshot = await readFile(path.join(dir, ".gitignore"), "utf8");
    const second = await cairn(["init"], { cwd: dir });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/nothing changed/);
    expect(await readFile(path.join(dir, ".gitignore"), "utf8")).toBe(snapshot);
  });
});

describe("cairn new", () => {
  it("writes a valid entry that passes check", async () => {
    const dir = await project();
    const r = await cairn(["new", "ctx-cancel", "--finding", "Middleware swallows cancellation errors.", "--evidence", "src/auth.ts:1-2, handleRequest() — no ctx check", "--verify", "grep for ctx.Err() in src/", "--tags", "go,ctx"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = await readFile(path.join(dir, "knowledge/ctx-cancel.md"), "utf8");
    expect(text).toContain(`lastConfirmed: ${today}`);
    expect(text).toContain("provenance: independent");
    expect(text).toContain("tags: [go, ctx]");
    expect((await cairn(["check"], { cwd: dir })).code).toBe(0);
  });

  it("refuses without evidence, with an unresolvable anchor, a secret, or an existing id — and writes nothing", async () => {
    const dir = await project({ "knowledge/taken.md": entryText() });
    const base = ["--finding", "A finding.", "--verify", "run it"];
    const noEvidence = await cairn(["new", "x1", ...base], { cwd: dir });
    expect(noEvidence.code).toBe(1);
    expect(noEvidence.stderr).toMatch(/evidence/);
    const badAnchor = await cairn(["new", "x2", ...base, "--evidence", "src/missing.ts:3"], { cwd: dir });
    expect(badAnchor.code).toBe(1);
    expect(badAnchor.stderr).toMatch(/anchor-unresolved/);
    const secret = await cairn(["new", "x3", "--finding", "Use token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.", "--evidence", "src/auth.ts", "--verify", "x"], { cwd: dir });
    expect(secret.code).toBe(1);
    expect(secret.stderr).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    const clash = await cairn(["new", "taken", ...base, "--evidence", "src/auth.ts"], { cwd: dir });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/already exists/);
    expect((await readdir(path.join(dir, "knowledge"))).sort()).toEqual([".gitkeep", "taken.md"]);
  });

  it("refuses an id an entry already has through its `id:` key, active or archived; a file name taken under another id is said as such", async () => {
    const dir = await project({
      "knowledge/old-name.md": entryText({ fm: "id: retry-swallow\nlastConfirmed: 2026-02-12\nprovenance: independent" }),
      "knowledge/archive/file-of-archived.md": entryText({ fm: "id: archived-one\nlastConfirmed: 2026-02-12\nprovenance: independent\narchived: 2026-02-13\narchivedReason: test" }),
    });
    const base = ["--finding", "A finding about retries.", "--verify", "run it", "--evidence", "src/auth.ts"];
    for (const [id, where] of [["retry-swallow", "knowledge/old-name.md"], ["archived-one", "knowledge/archive/file-of-archived.md"]]) {
      const refused = await cairn(["new", id!, ...base], { cwd: dir });
      expect({ id, code: refused.code }).toEqual({ id, code: 1 });
      expect(refused.stderr).toContain(`an entry with id "${id}" already exists (${where})`);
    }
    const file = await cairn(["new", "old-name", ...base], { cwd: dir });
    expect(file.code).toBe(1);
    expect(file.stderr).toContain("a file named old-name.md already exists (knowledge/old-name.md)");
    expect((await readdir(path.join(dir, "knowledge"))).sort()).toEqual([".gitkeep", "archive", "old-name.md"]);
  });
});

describe("cairn check: what is not an entry", () => {
  it("markdown in a subdirectory of knowledge/ or not named .md is named as never read; a path that holds no entry is a usage error", async () => {
    const dir = await project({
      "knowledge/good.md": entryText(),
      "knowledge/go/retry.md": entryText({ finding: "Retry helpers swallow the final error." }),
      "knowledge/long.markdown": entryText({ finding: "Long markdown." }),
      "knowledge/README.md": "# What this directory holds\n",
      "knowledge/docs/README.md": "# Notes\n",
    });
    const all = await cairn(["check", "--format", "json"], { cwd: dir });
    const report = JSON.parse(all.stdout);
    expect(report.diagnostics.map((d: { file: string; rule: string; severity: string }) => [d.file, d.rule, d.severity])).toEqual([
      ["knowledge/go/retry.md", "entry-misplaced", "warning"],
      ["knowledge/long.markdown", "entry-misplaced", "warning"],
    ]);
    expect(report.diagnostics[0].message).toMatch(/^not read as an entry: it is in knowledge\/go\/; entries are the \.md files directly in knowledge\/ \(active\) and knowledge\/archive\/ \(archived\)/);
    // A team that wants CI to fail on them says so in the config.
    await writeFile(path.join(dir, "cairn.config.json"), JSON.stringify({ rules: { "entry-misplaced": "error" } }));
    expect((await cairn(["check"], { cwd: dir })).code).toBe(1);
    for (const target of ["knowledge/go/retry.md", "src/auth.ts", "src"]) {
      const one = await cairn(["check", target], { cwd: dir });
      expect({ target, code: one.code }).toEqual({ target, code: 2 });
      expect(one.stderr).toContain(`${target} holds no entry: entries are the .md files directly in knowledge/ and knowledge/archive/`);
    }
    expect((await cairn(["check", "knowledge/good.md"], { cwd: dir })).code).toBe(0);
  });

  it("fails on what a pull request can bring beside the entries: a committed change log, ledger conflict markers; bad ledger lines are warned", async () => {
    const event = (id: string, day: string) => JSON.stringify({ v: 1, eventId: id, time: `2026-02-${day}T00:00:00.000Z`, type: "retracted", entry: "gone" });
    const dir = await project({
      "knowledge/good.md": entryText(),
      "knowledge/.pending/good.json": JSON.stringify({ key: "good", steps: [] }),
      "knowledge/.ledger/2026-02.jsonl": [event("A", "01"), "<<<<<<< HEAD", event("B", "02"), "=======", event("C", "03"), ">>>>>>> feature", "not json", ""].join("\n"),
    });
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "pr");
    const report = await cairn(["check", "--json"], { cwd: dir });
    expect(report.code).toBe(1);
    const found = JSON.parse(report.stdout).diagnostics.map((d: { file: string; line: number; rule: string; severity: string }) => [d.file, d.line, d.rule, d.severity]);
    expect(found).toEqual([
      ["knowledge/.ledger/2026-02.jsonl", 2, "ledger-conflict-marker", "error"],
      ["knowledge/.ledger/2026-02.jsonl", 4, "ledger-conflict-marker", "error"],
      ["knowledge/.ledger/2026-02.jsonl", 6, "ledger-conflict-marker", "error"],
      ["knowledge/.ledger/2026-02.jsonl", 7, "ledger-invalid-line", "warning"],
      ["knowledge/.pending/good.json", 1, "pending-committed", "error"],
    ]);
    const human = await cairn(["check"], { cwd: dir });
    expect(human.stdout).toMatch(/^knowledge\/\.pending\/good\.json:1:1 error pending-committed committed to git: files in knowledge\/\.pending\/ are a running change's log or lock/m);
    expect(human.stderr).not.toContain("line skipped"); // said once, as a diagnostic, not also as a warning
    // A log cairn wrote itself (untracked, as `cairn init`'s .gitignore keeps it) is no problem; markers removed, none left.
    git(dir, "rm", "-q", "--cached", "knowledge/.pending/good.json");
    await writeFile(path.join(dir, "knowledge/.ledger/2026-02.jsonl"), [event("A", "01"), event("B", "02"), event("C", "03"), ""].join("\n"));
    expect(await cairn(["check"], { cwd: dir })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^0 errors, 0 warnings/m) });
    // Checking one entry reports that entry; the ledger's problems are still said, on stderr.
    await writeFile(path.join(dir, "knowledge/.ledger/2026-02.jsonl"), [event("A", "01"), "<<<<<<< HEAD", ""].join("\n"));
    const one = await cairn(["check", "knowledge/good.md"], { cwd: dir });
    expect(one.code).toBe(0);
    expect(one.stderr).toContain("knowledge/.ledger/2026-02.jsonl:2: line skipped: a git merge conflict marker");
    // A committed plain file where the directory belongs is flagged too.
    await writeFile(path.join(dir, "knowledge/.ledger/2026-02.jsonl"), [event("A", "01"), ""].join("\n"));
    const { rm } = await import("node:fs/promises");
    await rm(path.join(dir, "knowledge/.pending"), { recursive: true, force: true });
    await writeFile(path.join(dir, "knowledge/.pending"), "junk\n");
    git(dir, "add", "-f", "knowledge/.pending");
    const file = await cairn(["check", "--json"], { cwd: dir });
    expect(JSON.parse(file.stdout).diagnostics.map((d: { file: string; rule: string }) => [d.file, d.rule])).toEqual([["knowledge/.pending", "pending-committed"]]);
  });
});

describe("cairn check", () => {
  it("exits 0 on clean entries, 1 on errors, and speaks human, json and github", async () => {
    const dir = await project({ "knowledge/good.md": entryText(), "knowledge/bad.md": entryText({ fm: "lastConfirmed: yesterday\nprovenance: independent" }) });
    const human = await cairn(["check"], { cwd: dir });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^knowledge\/bad\.md:2:1 error frontmatter-invalid .*YYYY-MM-DD/m);
    const asJson = JSON.parse((await cairn(["check", "--json"], { cwd: dir })).stdout);
    expect(asJson).toMatchObject({ errors: 1, warnings: 0, diagnostics: [{ file: "knowledge/bad.md", line: 2, column: 1, rule: "frontmatter-invalid", severity: "error" }] });
    const gh = await cairn(["check", "--format", "github"], { cwd: dir });
    expect(gh.stdout).toMatch(/^::error file=knowledge\/bad\.md,line=2,col=1,title=cairn frontmatter-invalid::/m);
    expect((await cairn(["check", "knowledge/good.md"], { cwd: dir })).code).toBe(0);
  });

  it("--strict fails on warnings; usage errors exit 2 without a stack trace", async () => {
    const dir = await project({ "knowledge/w.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\ncolour: red" }) });
    expect((await cairn(["check"], { cwd: dir })).code).toBe(0);
    expect((await cairn(["check", "--strict"], { cwd: dir })).code).toBe(1);
    const usage = await cairn(["check", "--format", "xml"], { cwd: dir });
    expect(usage.code).toBe(2);
    const missing = await cairn(["check", "nope.md"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
    for (const r of [usage, missing]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports duplicate ids across active and archive, symlinks leaving the knowledge dir, and broken references", async () => {
    const dir = await project({
      "knowledge/dup.md": entryText(),
      "knowledge/archive/dup.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\narchived: 2026-02-20\narchivedReason: decayed" }),
      "knowledge/ref.md": entryText({ fm: "lastConfirmed: 2026-02-12\nprovenance: independent\nsupersedes: ghost" }),
      "outside.md": entryText(),
    });
    await symlink(path.join(dir, "outside.md"), path.join(dir, "knowledge/link.md"));
    const r = JSON.parse((await cairn(["check", "--json"], { cwd: dir })).stdout) as { diagnostics: Array<{ file: string; rule: string; line: number }> };
    const got = r.diagnostics.map((d) => `${d.file}:${d.rule}:${d.line}`);
    expect(got).toEqual(expect.arrayContaining(["knowledge/dup.md:id-duplicate:1", "knowledge/link.md:symlink-outside:1", "knowledge/ref.md:reference-broken:4"]));
  });
});

describe("status, confirm, retract, restore", () => {
  it("confirm is a one/two-line git diff; retract deletes; restore moves back; unknown ids exit 1", async () => {
    const original = "---\r\n# a comment\r\nlastConfirmed: 2026-01-02   # when\r\nprovenance: primed\r\ntags: ['x', \"y\"]\r\n---\r\nA finding.\r\n\r\nEvidence: src/auth.ts:1, handleRequest()\r\nVerify: read it\r\n";
    const dir = await project({ "knowledge/e1.md": original, "knowledge/e2.md": entryText() });
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "base");

    const confirmed = await cairn(["confirm", "e1"], { cwd: dir });
    expect(confirmed.code).toBe(0);
    const diff = git(dir, "diff", "--numstat", "--", "knowledge/e1.md");
    expect(diff.trim()).toBe("2\t2\tknowledge/e1.md");
    const after = await readFile(path.join(dir, "knowledge/e1.md"), "utf8");
    expect(after).toBe(original.replace("2026-01-02", today).replace("primed", "independent"));
    expect(confirmed.stdout).toBe("confirmed e1 (knowledge/e1.md)\n");
    // Again the same day: the file does not change, and the confirmation is still recorded (it restarts the counter).
    const again = await cairn(["confirm", "e1"], { cwd: dir });
    expect(again.stdout).toBe("confirmed again (the file already said today, independent): e1 (knowledge/e1.md)\n");
    expect(await readFile(path.join(dir, "knowledge/e1.md"), "utf8")).toBe(after);

    const status = JSON.parse((await cairn(["status", "--json"], { cwd: dir })).stdout);
    expect(status.entries.map((e: { id: string }) => e.id)).toEqual(["e1", "e2"]);
    expect(status.entries[0]).toMatchObject({ id: "e1", state: "active", lastConfirmed: today, provenance: "independent", unconfirmedRuns: 0, decayAfterRuns: 10, confirmations: { independent: 0, primed: 0 } });

    expect((await cairn(["retract", "e2"], { cwd: dir })).code).toBe(0);
    expect(await readdir(path.join(dir, "knowledge"))).not.toContain("e2.md");

    const unknown = await cairn(["confirm", "e3"], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no entry with id "e3".*Did you mean: e1/);
    const traversal = await cairn(["confirm", "../e1"], { cwd: dir });
    expect(traversal.code).toBe(2);
  });

  it("restore moves an archived entry back, removing archived keys and confirming it; never overwrites", async () => {
    const archived = entryText({ fm: "lastConfirmed: 2026-01-02\nprovenance: independent\narchived: 2026-02-01\narchivedReason: \"decayed: 10 runs\"" });
    const dir = await project({ "knowledge/archive/old.md": archived });
    const all = JSON.parse((await cairn(["status", "--all", "--json"], { cwd: dir })).stdout);
    expect(all.entries[0]).toMatchObject({ id: "old", state: "archived", archivedReason: "decayed: 10 runs" });
    expect((await cairn(["restore", "old"], { cwd: dir })).code).toBe(0);
    const text = await readFile(path.join(dir, "knowledge/old.md"), "utf8");
    expect(text).toBe(entryText({ fm: `lastConfirmed: ${today}\nprovenance: independent` }));
    expect(await readdir(path.join(dir, "knowledge/archive"))).toEqual([]);
    // A clash at the target is refused and both files stay intact.
    await writeFile(path.join(dir, "knowledge/archive/old.md"), archived);
    const clash = await cairn(["restore", "old"], { cwd: dir });
    expect(clash.code).not.toBe(0);
    expect(await readFile(path.join(dir, "knowledge/archive/old.md"), "utf8")).toBe(archived);
  });
});

describe("configuration and project errors", () => {
  it("an invalid cairn.config.json names the key and exits 2; a missing knowledge dir says to run init", async () => {
    const dir = await project({ "cairn.config.json": JSON.stringify({ decayAfterRuns: "ten", sanitize: { denyPatterns: ["("] }, colour: 1 }) });
    const bad = await cairn(["status"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cairn\.config\.json is invalid/);
    expect(bad.stderr).toMatch(/decayAfterRuns/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const empty = await testdir();
    const none = await cairn(["check"], { cwd: empty });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/run `cairn init`/);
    const outside = await cairn(["check", "../x.md"], { cwd: await project() });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/outside the project root/);
  });

  it("check's paths are relative to the working directory, as every other command's; outside the project is still refused", async () => {
    const dir = await project({ "knowledge/good.md": entryText() });
    const inside = path.join(dir, "knowledge");
    for (const p of ["good.md", "./good.md", "../knowledge/good.md", path.join(inside, "good.md"), "."]) {
      const r = await cairn(["check", p], { cwd: inside });
      expect(r.stderr, p).toBe("");
      expect([r.code, r.stdout], p).toEqual([0, p === "." ? expect.stringMatching(/0 errors, 0 warnings in \d+ files?\n$/) : "0 errors, 0 warnings in 1 file\n"]);
    }
    // --root names the project, not where paths start: they still resolve against the working directory.
    expect((await cairn(["--root", dir, "check", "knowledge/good.md"], { cwd: dir })).code).toBe(0);
    expect((await cairn(["--root", dir, "check", "good.md"], { cwd: inside })).code).toBe(0);
    const missing = await cairn(["check", "nope.md"], { cwd: inside });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no such file or directory: ${path.join(inside, "nope.md")}`);
    const outside = await cairn(["--root", dir, "check", "knowledge/good.md"], { cwd: path.dirname(dir) });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/knowledge\/good\.md is outside the project root/);
    expect(outside.stderr).not.toMatch(/relative to the root/);
  });

  it("cairn schema prints a JSON Schema editors can use", async () => {
    const r = await cairn(["schema"], { cwd: await project() });
    const schema = JSON.parse(r.stdout);
    expect(schema.required).toEqual(["lastConfirmed", "provenance"]);
    expect(schema.properties.provenance.enum).toEqual(["independent", "primed"]);
  });
});
