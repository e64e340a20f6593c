import { execFile } from "node:child_process";
import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMMENT_MARKER } from "../../src/action/report.js";
import { REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES } from "../helpers/fixture.js";
import { GIT_ENV, tempDir, tempRepo, type TempRepo } from "../diff/repo.js";
import { fakeGitHub, type FakeGitHub } from "./github-api.js";

const ACTION = path.join(REPO, "dist/action/main.js");
const REPOSITORY = "acme/shop";
const PR = 42;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

type Run = { code: number; stdout: string; stderr: string; summary: string; outputs: Record<string, string> };

/**
 * A repository whose `main` has two valid entries, and a `feature` branch (checked out) that breaks
 * one entry, adds another, and changes code so that the untouched entry's anchor no longer resolves.
 */
async function pullRequest(): Promise<{ repo: TempRepo; base: string }> {
  const repo = await tempRepo();
  cleanup.push(repo.cleanup);
  const files: Record<string, string> = {
    ...SOURCE_FILES,
    "src/db.ts": "export function find(id: string) {\n  return query('SELECT * FROM users WHERE id = ' + id);\n}\n",
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    // As `cairn init` writes it: the index the Action builds in .cairn/ stays out of the commits below.
    ".gitignore": ".cairn/\nknowledge/.pending/\n",
    "knowledge/archive/.gitkeep": "",
    "knowledge/.ledger/.gitkeep": "",
    "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    "knowledge/db-find.md": entryText({ finding: "SQL built by concatenation in find() allows injection.", evidence: "src/db.ts:2, find() — id concatenated", verify: "grep for `' +` in src/db.ts" }),
  };
  for (const [rel, text] of Object.entries(files)) await repo.write(rel, text);
  const base = repo.commit("main: knowledge");
  repo.git("checkout", "-q", "-b", "feature");
  await repo.write("knowledge/auth-ctx.md", entryText({ fm: "lastConfirmed: someday\nprovenance: independent\ntagz: [auth]", finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
  await repo.write("knowledge/new-timeouts.md", entryText({ finding: "Outbound calls without a timeout hang the handler when the upstream stalls." }));
  // Code change only: db-find.md is untouched, but its anchor's symbol is gone.
  await repo.write("src/db.ts", "export function lookup(id: string) {\n  return query('SELECT 1');\n}\n");
  repo.commit("feature: knowledge and code");
  return { repo, base };
}

async function runAction(repo: TempRepo, env: Record<string, string>, event: unknown): Promise<Run> {
  const dir = await tempDir("cairn-action-");
  cleanup.push(async () => (await import("node:fs/promises")).rm(dir, { recursive: true, force: true }));
  const eventPath = path.join(dir, "event.json");
  const summary = path.join(dir, "summary.md");
  const output = path.join(dir, "output.txt");
  await writeFile(eventPath, JSON.stringify(event));
  await writeFile(summary, "");
  await writeFile(output, "");
  const { GITHUB_ACTIONS: _a, GITHUB_TOKEN: _t, ...base } = GIT_ENV;
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [ACTION],
      {
        cwd: repo.dir,
        env: { ...base, GITHUB_WORKSPACE: repo.dir, GITHUB_EVENT_PATH: eventPath, GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output, GITHUB_REPOSITORY: REPOSITORY, GITHUB_BASE_REF: "main", ...env },
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
  const outputs = Object.fromEntries(
    (await readFile(output, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  return { ...result, summary: await readFile(summary, "utf8"), outputs };
}

async function api(): Promise<FakeGitHub> {
  const github = await fakeGitHub(REPOSITORY, PR);
  cleanup.push(github.close);
  return github;
}

/** A GitHub token shape, assembled so that this file holds none. */
const token = () => ["ghp", "_", "Zx9Qm2Lp7Rt4Vb8Nc3Hd6Jk1Wf5Gs0Ty2Ua9Eo"].join("");

const prEvent = (base: string) => ({ action: "synchronize", number: PR, pull_request: { number: PR, base: { sha: base, ref: "main" }, head: { ref: "feature" } } });

describe("the GitHub Action's step (run locally with the variables GitHub sets)", () => {
  it("annotates only files the pull request changes, lists the rest in the summary with the knowledge diff, and fails on their errors", async () => {
    const { repo, base } = await pullRequest();
    const run = await runAction(repo, { CAIRN_SARIF: "out/cairn.sarif" }, prEvent(base));
    expect(run.code, run.stderr).toBe(1);
    const annotations = run.stdout.split("\n").filter((l) => l.startsWith("::"));
    expect(annotations.length).toBeGreaterThanOrEqual(2);
    for (const a of annotations) expect(a).toMatch(/^::(error|warning) file=knowledge\/auth-ctx\.md,/);
    expect(run.stdout).toMatch(/frontmatter-invalid/);
    expect(run.stdout).not.toMatch(/db-find/); // the untouched entry whose anchor drifted is not annotated

    expect(run.summary).toMatch(/### cairn check\n\n❌ 1 error, 1 warning in files this pull request changes\./);
    expect(run.summary).toMatch(/<details><summary>1 error, 0 warnings in entries this pull request does not change/);
    expect(run.summary).toMatch(/`knowledge\/db-find\.md:\d+` \| error \| `anchor-unresolved`/);
    expect(run.summary).toMatch(/## Knowledge changes \([0-9a-f]{12}\.\.HEAD\)\n\n\*\*1 added · 1 edited\*\*/);
    expect(run.summary).toMatch(/new-timeouts/);
    expect(run.outputs).toEqual({ errors: "1", warnings: "1", "sarif-file": path.join(repo.dir, "out/cairn.sarif"), "comment-url": "" });
    const sarif = JSON.parse(await readFile(path.join(repo.dir, "out/cairn.sarif"), "utf8"));
    expect(sarif.runs[0].results.map((r: { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toEqual(
      expect.arrayContaining(["knowledge/auth-ctx.md", "knowledge/db-find.md"]),
    );

    const all = await runAction(repo, { CAIRN_ANNOTATE: "all" }, prEvent(base));
    expect(all.stdout).toMatch(/^::error file=knowledge\/db-find\.md,/m);
    expect(all.summary).not.toMatch(/<details>/);
  });

  it("posts one sticky comment with the job's token and updates it in place on the next run", async () => {
    const { repo, base } = await pullRequest();
    const github = await api();
    github.comments.push({ id: 7, body: "LGTM from a human", html_url: "https://example.test/c/7", user: { login: "someone", type: "User" } });
    const env = { CAIRN_COMMENT: "true", GITHUB_TOKEN: "ghs_jobtoken", GITHUB_API_URL: github.url };

    const first = await runAction(repo, env, prEvent(base));
    expect(first.code).toBe(1);
    expect(github.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /repos/${REPOSITORY}/issues/${PR}/comments?per_page=100&page=1`,
      `POST /repos/${REPOSITORY}/issues/${PR}/comments`,
    ]);
    for (const r of github.requests) {
      expect(r.authorization).toBe("Bearer ghs_jobtoken");
      expect(r.apiVersion).toBe("2022-11-28");
    }
    const ours = github.comments.find((c) => c.body.includes(COMMENT_MARKER))!;
    expect(ours.body).toMatch(/new-timeouts/);
    expect(ours.body).toMatch(/❌ 1 error, 1 warning in files this pull request changes/);
    expect(first.outputs["comment-url"]).toBe(ours.html_url);

    // The author fixes the entry and pushes: the same comment is edited, no second one appears.
    await repo.write("knowledge/auth-ctx.md", entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
    repo.commit("fix the entry");
    github.requests.length = 0;
    const second = await runAction(repo, env, prEvent(base));
    expect(second.code, second.stdout).toBe(0);
    expect(github.requests.map((r) => r.method)).toEqual(["GET", "PATCH"]);
    expect(github.requests[1]!.url).toBe(`/repos/${REPOSITORY}/issues/comments/${ours.id}`);
    expect(github.comments).toHaveLength(2);
    expect(ours.body).toMatch(/✅ No problems in files this pull request changes\./);

    // Nothing changed since: the comment is left alone.
    github.requests.length = 0;
    await runAction(repo, env, prEvent(base));
    expect(github.requests.map((r) => r.method)).toEqual(["GET"]);
  });

  it("a comment someone else wrote with cairn's marker is never edited: cairn posts its own", async () => {
    const { repo, base } = await pullRequest();
    const github = await api();
    github.comments.push({ id: 5, body: `LGTM ${COMMENT_MARKER}`, html_url: "https://example.test/c/5", user: { login: "mallory", type: "User" } });
    const env = { CAIRN_COMMENT: "true", GITHUB_TOKEN: "ghs_jobtoken", GITHUB_API_URL: github.url };
    await runAction(repo, env, prEvent(base));
    expect(github.requests.map((r) => `${r.method} ${r.url.split("?")[0]}`)).toEqual([`GET /repos/${REPOSITORY}/issues/${PR}/comments`, "GET /user", `POST /repos/${REPOSITORY}/issues/${PR}/comments`]);
    expect(github.comments.find((c) => c.id === 5)!.body).toBe(`LGTM ${COMMENT_MARKER}`);
    // The next run finds its own comment (the bot's), not mallory's.
    github.requests.length = 0;
    await repo.write("knowledge/auth-ctx.md", entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
    repo.commit("fix the entry");
    await runAction(repo, env, prEvent(base));
    expect(github.requests.map((r) => `${r.method} ${r.url.split("?")[0]}`)).toEqual([`GET /repos/${REPOSITORY}/issues/${PR}/comments`, "GET /user", `PATCH /repos/${REPOSITORY}/issues/comments/${github.comments.at(-1)!.id}`]);
    expect(github.comments.find((c) => c.id === 5)!.body).toBe(`LGTM ${COMMENT_MARKER}`);
  });

  it("what an entry says reaches the comment escaped: no HTML, images, @mentions or broken code spans from a bad value or key", async () => {
    const { repo, base } = await pullRequest();
    const hostile = 'lastConfirmed: \'<img src="https://evil.example/p.png"> cc @octocat &#x40;acme/security <details><summary>all clear</summary>\'\nprovenance: independent\n"x` <img src=https://evil.example/t.png> hey @octocat `y": 1';
    await repo.write("knowledge/auth-ctx.md", entryText({ fm: hostile, finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
    repo.commit("hostile values");
    const github = await api();
    await runAction(repo, { CAIRN_COMMENT: "true", GITHUB_TOKEN: "ghs_jobtoken", GITHUB_API_URL: github.url }, prEvent(base));
    const body = github.comments.find((c) => c.body.includes(COMMENT_MARKER))!.body;
    for (const text of [body, (await runAction(repo, {}, prEvent(base))).summary]) {
      expect(text).toMatch(/frontmatter-invalid/);
      expect(text).toMatch(/frontmatter-unknown-key/);
      // Each character that would start HTML or a character reference is preceded by a backslash.
      expect(text).not.toMatch(/(?<!\\)<img|<details><summary>all clear|@octocat|(?<!\\)&#x40;acme/);
      expect(text).toContain("\\<img src=");
      expect(text).toContain("@&#8203;octocat");
    }
  });

  it("a token without write access (fork pull requests) is a warning, not a failed check", async () => {
    const { repo, base } = await pullRequest();
    await repo.write("knowledge/auth-ctx.md", entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
    repo.commit("valid entries");
    const github = await api();
    github.failWith = 403;
    const run = await runAction(repo, { CAIRN_COMMENT: "true", GITHUB_TOKEN: "ghs_readonly", GITHUB_API_URL: github.url }, prEvent(base));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^::warning title=cairn::cannot write the pull request comment: GET \/issues\/42\/comments answered 403: .*pull-requests: write/m);
  });

  it("a pull request that rewrites or deletes ledger events fails with an annotation on the ledger line; appending passes", async () => {
    const repo = await tempRepo();
    cleanup.push(repo.cleanup);
    const ledger = "knowledge/.ledger/2026-02.jsonl";
    const events = [1, 2, 3].map((i) => ({ v: 1, eventId: `01ACT${String(i).padStart(21, "0")}`, type: "injected", run: `r${i}`, agent: "security", entries: ["auth-ctx"], time: `2026-02-0${i}T10:00:00.000Z` }));
    const lines = (list: object[]) => list.map((e) => `${JSON.stringify(e)}\n`).join("");
    for (const [rel, text] of Object.entries({
      ...SOURCE_FILES,
      "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
      ".gitignore": ".cairn/\nknowledge/.pending/\n",
      "knowledge/archive/.gitkeep": "",
      "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
      [ledger]: lines(events),
    })) await repo.write(rel, text);
    const base = repo.commit("main");
    repo.git("checkout", "-q", "-b", "feature");
    const r9 = { ...events[0]!, eventId: "01ACT000000000000000000099", run: "r9", time: "2026-02-20T10:00:00.000Z" };
    await repo.write(ledger, lines([...events, r9]));
    repo.commit("append");
    const fine = await runAction(repo, {}, prEvent(base));
    expect(fine.code, fine.stdout).toBe(0);
    // auth-ctx was confirmed on 2026-02-12, after BASE's injections: r9 is the first run its counter counts.
    expect(fine.summary).toContain("### Decay counters moved by new ledger events (1)\n\n- `auth-ctx` · decay 0/10 → 1/10 — 1 new event (1 injected) from 1 run (r9)");
    expect(fine.stdout).not.toMatch(/ledger-decay-pushed/);

    // Ten more fabricated runs push auth-ctx past its limit: a warning annotation at the last of them, not a failure.
    const forged = Array.from({ length: 10 }, (_, i) => ({ ...events[0]!, eventId: `01ACT0000000000000000001${i}0`, run: `forged-${i}`, time: `2026-03-1${i}T10:00:00.000Z` }));
    await repo.write(ledger, lines([...events, r9, ...forged]));
    repo.commit("forge");
    const pushed = await runAction(repo, {}, prEvent(base));
    expect(pushed.code, pushed.stdout).toBe(0);
    expect(pushed.stdout).toMatch(/^::warning file=knowledge\/\.ledger\/2026-02\.jsonl,line=14,.*ledger-decay-pushed.*auth-ctx: decay 0\/10 → 11\/10/m);
    expect(pushed.summary).toContain("- ⚠️ `auth-ctx` · decay 0/10 → 11/10, past the limit");
    repo.git("reset", "-q", "--hard", "HEAD~1");

    await repo.write(ledger, lines([{ ...events[0]!, entries: ["auth-ctz"] }, events[1]!]));
    repo.commit("rewrite history");
    const run = await runAction(repo, {}, prEvent(base));
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/^::error file=knowledge\/\.ledger\/2026-02\.jsonl,line=1,.*ledger-event-rewritten/m);
    expect(run.stdout).toMatch(/^::error file=knowledge\/\.ledger\/2026-02\.jsonl,line=1,.*ledger-event-removed/m);
    expect(run.outputs.errors).toBe("2");
    expect(run.summary).toMatch(/### Problems \(2\)/);
  });

  it("a pull request that switches a gating rule off in the file cairn.config.json links to fails with an annotation there", async () => {
    const repo = await tempRepo();
    cleanup.push(repo.cleanup);
    for (const [rel, text] of Object.entries({
      ...SOURCE_FILES,
      ".gitignore": ".cairn/\nknowledge/.pending/\n",
      "config/cairn.json": JSON.stringify({ embedder: { provider: "none" } }, null, 2),
      "knowledge/archive/.gitkeep": "",
      "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    })) await repo.write(rel, text);
    await symlink("config/cairn.json", path.join(repo.dir, "cairn.config.json"));
    const base = repo.commit("main");
    repo.git("checkout", "-q", "-b", "feature");
    await repo.write("config/cairn.json", JSON.stringify({ embedder: { provider: "none" }, rules: { "prompt-injection": "off" } }, null, 2));
    repo.commit("relax the rules");
    const run = await runAction(repo, {}, prEvent(base));
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/^::error file=config\/cairn\.json,line=6,.*config-gate-weakened/m);
    expect(run.outputs.errors).toBe("1");
    expect(run.summary).toMatch(/### Problems \(1\)\n\n- ❌ `config\/cairn\.json:6` `config-gate-weakened`/);

    // A change to the settings alone, loosening nothing, is still worth a comment.
    repo.git("checkout", "-q", "-b", "quiet", base);
    await repo.write("config/cairn.json", JSON.stringify({ embedder: { provider: "none" }, maxPerAgent: 3 }, null, 2));
    repo.commit("fewer entries per agent");
    const github = await api();
    const quiet = await runAction(repo, { CAIRN_COMMENT: "true", GITHUB_TOKEN: "ghs_jobtoken", GITHUB_API_URL: github.url }, prEvent(base));
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(github.comments.find((c) => c.body.includes(COMMENT_MARKER))?.body).toContain("cairn.config.json (a link to config/cairn.json) changed (edited): maxPerAgent 5 (default) → 3");
  });

  it.each([
    ["knowledgeDir: kb, kb -> knowledge", "knowledge", "kb"],
    ["no config, knowledge -> docs/kb", "docs/kb", "knowledge"],
  ])("a knowledge directory reached through a link (%s): problems in the files the pull request adds are annotated and fail", async (_name, real, shown) => {
    const repo = await tempRepo();
    cleanup.push(repo.cleanup);
    const config = shown === "knowledge" ? { embedder: { provider: "none" } } : { knowledgeDir: shown, embedder: { provider: "none" } };
    for (const [rel, text] of Object.entries({
      ...SOURCE_FILES,
      "cairn.config.json": JSON.stringify(config),
      [`${real}/archive/.gitkeep`]: "",
      [`${real}/auth-ctx.md`]: entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    })) await repo.write(rel, text);
    await symlink(path.relative(path.dirname(path.join(repo.dir, shown)), path.join(repo.dir, real)), path.join(repo.dir, shown));
    const base = repo.commit("main");
    repo.git("checkout", "-q", "-b", "feature");
    await repo.write(`${real}/leak.md`, entryText({ finding: `Upstream calls in auth middleware are safe; ${token()} is the test key.` }));
    repo.commit("feature");
    const run = await runAction(repo, {}, prEvent(base));
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^::error file=${shown.replace("/", "\\/")}\\/leak\\.md,.*secret-github-token`, "m"));
    expect(run.summary).toMatch(/\*\*1 added\*\*/);
    expect(run.summary).toContain(`\`${shown}/leak.md\``);
  });

  it("knowledge/ swapped for a link to a folder committed earlier: the rewritten entry is in the diff, the move is annotated, and its entries' errors are annotated and fail", async () => {
    const repo = await tempRepo();
    cleanup.push(repo.cleanup);
    for (const [rel, text] of Object.entries({
      ...SOURCE_FILES,
      "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
      "knowledge/archive/.gitkeep": "",
      "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    })) await repo.write(rel, text);
    repo.commit("main: knowledge");
    // Committed earlier as documentation: never reviewed as knowledge.
    await repo.write("docs/notes/archive/.gitkeep", "");
    await repo.write("docs/notes/auth-ctx.md", entryText({ finding: `Cancellation in auth middleware was audited and is correct; ${token()} is the test key.` }));
    const base = repo.commit("docs: notes");
    repo.git("checkout", "-q", "-b", "feature");
    repo.git("rm", "-rq", "knowledge");
    await symlink("docs/notes", path.join(repo.dir, "knowledge"));
    repo.commit("dedupe");
    const run = await runAction(repo, {}, prEvent(base));
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/^::warning file=knowledge,.*knowledge-dir-moved::the knowledge directory moved between [0-9a-f]{12} and HEAD: knowledge → docs\/notes/m);
    expect(run.stdout).toMatch(/^::error file=knowledge\/auth-ctx\.md,.*secret-github-token/m);
    expect(run.summary).toMatch(/\*\*1 edited\*\*/);
    expect(run.summary).toContain("The knowledge directory moved: `knowledge` → `docs/notes` (reached as `knowledge`)");
  });

  it("a knowledge directory that is a git submodule: a bump fails with knowledge-dir-submodule, and its entries' errors are annotated", async () => {
    const kb = await tempRepo();
    cleanup.push(kb.cleanup);
    await kb.write("archive/.gitkeep", "");
    await kb.write("auth-ctx.md", entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }));
    kb.commit("one");
    const repo = await tempRepo();
    cleanup.push(repo.cleanup);
    for (const [rel, text] of Object.entries({ ...SOURCE_FILES, "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }) })) await repo.write(rel, text);
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", kb.dir, "knowledge");
    const base = repo.commit("main: knowledge as a submodule");
    await kb.write("auth-ctx.md", entryText({ finding: `Upstream calls in auth middleware are safe; ${token()} is the test key.` }));
    kb.commit("two");
    repo.git("checkout", "-q", "-b", "feature");
    repo.git("-C", "knowledge", "-c", "protocol.file.allow=always", "pull", "-q", "origin", "main");
    repo.commit("bump the knowledge");
    const run = await runAction(repo, {}, prEvent(base));
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/^::error file=knowledge,.*knowledge-dir-submodule::.*cairn cannot see inside a submodule; its entries are not reviewed here/m);
    expect(run.stdout).toMatch(/^::error file=knowledge\/auth-ctx\.md,.*secret-github-token/m);
    expect(run.summary).not.toContain("No knowledge changes");
  });

  it("outside a pull request every problem is annotated, with no diff and no comment", async () => {
    const { repo } = await pullRequest();
    const github = await api();
    const run = await runAction(repo, { CAIRN_COMMENT: "true", GITHUB_TOKEN: "t", GITHUB_API_URL: github.url }, { ref: "refs/heads/main", commits: [] });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^::error file=knowledge\/db-find\.md,/m);
    expect(run.stdout).toMatch(/no pull request comment: the event is not a pull request/);
    expect(run.summary).toMatch(/in the knowledge base\./);
    expect(run.summary).not.toMatch(/Knowledge changes/);
    expect(github.requests).toEqual([]);
  });

  it("a base missing from the clone annotates everything and says why; bad inputs name the input", async () => {
    const { repo } = await pullRequest();
    const run = await runAction(repo, {}, prEvent("0123456789abcdef0123456789abcdef01234567"));
    expect(run.stdout).toMatch(/^::notice title=cairn::could not tell which files the pull request changes, so every file is annotated: .*fetch-depth: 0/m);
    expect(run.stdout).toMatch(/^::error file=knowledge\/db-find\.md,/m);
    expect(run.summary).toMatch(/> no knowledge diff:/);

    const bad = await runAction(repo, { CAIRN_ANNOTATE: "some" }, prEvent("HEAD"));
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/^::error title=cairn::cairn action: input annotate must be "changed" or "all"/m);
  });
});
