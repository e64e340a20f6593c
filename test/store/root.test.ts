/**
 * Issue 8: `cairn init` in X/projects/new modified X because X has knowledge/; a wrong --root or
 * knowledgeDir made status (exit 0) and MCP serve an empty knowledge base; the MCP check tool
 * reported {"errors":0} for /etc/passwd or a directory outside the root while the CLI refused.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, readdir, readFile, symlink } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { findRoot, gitTop } from "../../src/store/layout.js";
import { cairn, CLI } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const NO_MODEL = JSON.stringify({ embedder: { provider: "none" } });

describe("init works where it is run, never in an ancestor", () => {
  it("cairn init in X/projects/new sets up X/projects/new and leaves X (which has knowledge/) alone", async () => {
    const x = await testdir({ "knowledge/theirs.md": entryText(), ".gitignore": "dist/\n" });
    const here = path.join(x, "projects/new");
    await mkdir(here, { recursive: true });
    const r = await cairn(["init"], { cwd: here });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("created   knowledge/");
    expect(await readdir(path.join(here, "knowledge"))).toEqual(expect.arrayContaining(["archive", ".ledger"]));
    expect(await readFile(path.join(here, ".gitignore"), "utf8")).toBe(".cairn/\nknowledge/.pending/\n");
    expect(await readFile(path.join(x, ".gitignore"), "utf8")).toBe("dist/\n");
    expect((await readdir(path.join(x, "knowledge"))).sort()).toEqual(["theirs.md"]);
  });
});

describe("root discovery stops at the git repository's top", () => {
  it("a repository nested in a folder with knowledge/ does not adopt that folder", async () => {
    const x = await testdir({ "knowledge/theirs.md": entryText(), "repo/src/a.ts": "" });
    const repo = path.join(x, "repo");
    execFileSync("git", ["init", "-q"], { cwd: repo });
    expect(findRoot(path.join(repo, "src"))).toBeUndefined();
    expect(gitTop(path.join(repo, "src"))).toBe(repo);
    expect(findRoot(x)).toBe(x); // outside git nothing changes
    const r = await cairn(["status"], { cwd: path.join(repo, "src") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no knowledge directory: knowledge/ does not exist in ${repo}; run \`cairn init\` there`);
  });

  it("inside a repository the nearest knowledge/ or cairn.config.json below the top is the root", async () => {
    const repo = await testdir({ "knowledge/a.md": entryText(), "pkg/cairn.config.json": "{}", "pkg/src/x.ts": "", "src/y.ts": "" });
    execFileSync("git", ["init", "-q"], { cwd: repo });
    expect(findRoot(path.join(repo, "pkg/src"))).toBe(path.join(repo, "pkg"));
    expect(findRoot(path.join(repo, "src"))).toBe(repo);
  });
});

describe("a root without a knowledge directory is an error that says what to do", () => {
  it("status and search exit 2; inject exits 0 with the error as a warning and creates nothing", async () => {
    const dir = await testdir({ "cairn.config.json": NO_MODEL, ...SOURCE_FILES });
    const message = /no knowledge directory: knowledge\/ does not exist in .*; run `cairn init` there to set cairn up, pass --root DIR .* or set "knowledgeDir"/;
    for (const args of [["status"], ["search", "auth"]]) {
      const r = await cairn(["--root", dir, ...args]);
      expect([args[0], r.code]).toEqual([args[0], 2]);
      expect(r.stderr).toMatch(message);
    }
    const kb = await openKnowledgeBase({ root: dir, embedder: null });
    for (const call of [() => kb.check(), () => kb.index(), () => kb.decay(), () => kb.recordFindings("r1", [{ agent: "a", text: "x" }])]) {
      await expect(call()).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(message) });
    }
    const inject = await cairn(["--root", dir, "inject", "--run", "r1", "--agent", "security", "--keywords", "auth"]);
    expect(inject.code).toBe(0);
    expect(inject.stdout).toBe("");
    expect(inject.stderr).toMatch(/warning: .*no knowledge directory: knowledge\/ does not exist/);
    expect((await readdir(dir)).sort()).toEqual(["cairn.config.json", "src"]); // no .cairn/, no knowledge/
  });

  it("a knowledgeDir that does not exist names the setting", async () => {
    const dir = await testdir({ "cairn.config.json": JSON.stringify({ knowledgeDir: "docs/kb", embedder: { provider: "none" } }), "knowledge/a.md": entryText() });
    const r = await cairn(["--root", dir, "status", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("docs/kb/ does not exist");
  });

  it("cairn mcp refuses to serve a root without a knowledge directory (exit 2)", async () => {
    const dir = await testdir({ "cairn.config.json": NO_MODEL });
    const child = spawn(process.execPath, [CLI, "--root", dir, "mcp"], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("no knowledge directory");
  });
});

describe("MCP tools validate paths exactly like the CLI", () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it("check refuses /etc/passwd, ../outside and a link leaving the root — over MCP and on the command line", async () => {
    const outside = await testdir({ "x.md": entryText() });
    const root = await testdir({ "cairn.config.json": NO_MODEL, ...SOURCE_FILES, "knowledge/ok.md": entryText() });
    await symlink(outside, path.join(root, "knowledge/linked"));
    const relOutside = path.relative(root, outside);
    const client = new Client({ name: "cairn-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "--root", root, "mcp"], cwd: root, stderr: "pipe" }));
    clients.push(client);
    for (const [p, expected] of [
      ["/etc/passwd", /\/etc\/passwd is outside the project root/],
      [relOutside, /is outside the project root/],
      ["knowledge/linked", /knowledge\/linked is a symbolic link to .*, outside the repository root/],
    ] as const) {
      const raw = (await client.callTool({ name: "check", arguments: { paths: [p] } })) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(raw.isError, p).toBe(true);
      expect(raw.content[0]?.text).toMatch(expected);
    }
    const cli = await cairn(["--root", root, "check", "/etc/passwd"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/\/etc\/passwd is outside the project root/);
  });
});
