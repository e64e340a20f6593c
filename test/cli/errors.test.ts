/**
 * Issue 8, "Internal errors (exit 3, unexpected)" and "wrong messages": each reproduction gets a
 * clear message and the right exit code.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { parseEntry } from "../../src/entry/parse.js";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { cairn, CLI } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const NO_MODEL = JSON.stringify({ embedder: { provider: "none" } });

function project(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  return testdir({ "cairn.config.json": NO_MODEL, ...SOURCE_FILES, "knowledge/ctx.md": entryText(), "knowledge/archive/.gitkeep": "", ...files });
}

describe("no internal errors", () => {
  it("a manifest entry that is null means: rebuild the index (exit 0, one warning)", async () => {
    const root = await project();
    expect((await cairn(["--root", root, "index"])).code).toBe(0);
    const manifest = JSON.parse(await readFile(path.join(root, ".cairn/manifest.json"), "utf8"));
    const file = path.join(root, ".cairn", manifest.files.records);
    // A record line replaced by `null`: the records file is shorter than the catalogue's table says.
    const lines = (await readFile(file, "utf8")).split("\n");
    lines[0] = "null";
    await writeFile(file, lines.join("\n"));
    const r = await cairn(["--root", root, "search", "context cancellation", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results.map((x: { id: string }) => x.id)).toEqual(["ctx"]);
    expect(out.warnings.join("\n")).toMatch(/records file is \d+ bytes, not at least \d+ \(cut short or replaced\)\); rebuilding/);
  });

  it(".cairn or knowledge/archive being a file exits 2 saying what to move, knowledge being a file too", async () => {
    const root = await project({ ".cairn": "not a directory" });
    const index = await cairn(["--root", root, "index"]);
    expect(index.code).toBe(2);
    expect(index.stderr).toMatch(/\.cairn is a file, not a directory .*; cairn keeps its derived index in \.cairn\/ — move that file away/);
    expect(index.stderr).not.toContain("unexpected");

    const archived = await testdir({ "cairn.config.json": NO_MODEL, ...SOURCE_FILES, "knowledge/ctx.md": entryText(), "knowledge/archive": "oops" });
    const status = await cairn(["--root", archived, "status"]);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain("knowledge/archive is not a directory; archived entries live in knowledge/archive/ — rename that file");

    const flat = await testdir({ knowledge: "a file" });
    const kb = await openKnowledgeBase({ root: flat, embedder: null });
    await expect(kb.status()).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("knowledge in") });
    await expect(kb.init()).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("knowledge in") });
  });
});

describe("clear messages", () => {
  it("a transformers model path that does not exist falls back to lexical search with one warning", async () => {
    // With a ranking weight the model is used by search (at weight 0 search never loads it).
    const root = await project({ "cairn.config.json": JSON.stringify({ embedder: { provider: "transformers", model: "all-MiniLM-L6-v2", path: "models/missing", weight: 0.3 } }) });
    const r = await cairn(["--root", root, "search", "context cancellation"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("ctx");
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/embedding model unavailable \(Embedding model all-MiniLM-L6-v2 not found: model directory .*models\/missing .* does not exist.*\); using lexical search only/);
    expect(r.stderr).not.toMatch(/dims/);
  });

  it("confirm on an entry with broken YAML says it exists but cannot be parsed, with file and line (exit 1)", async () => {
    const root = await project({ "knowledge/broken.md": "---\nlastConfirmed: 2026-02-12\nprovenance: [independent\n---\nA finding.\n" });
    const r = await cairn(["--root", root, "confirm", "broken"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/knowledge\/broken.md holds "broken" but cannot be parsed: knowledge\/broken.md:\d+:\d+ yaml-invalid/);
    expect(r.stderr).not.toContain("no entry with id");
  });

  it("an unexpected error says to set CAIRN_DEBUG=1 only when it is not set; with it set, the stack follows", async () => {
    // A failure no code path expects: the working directory cannot be read (process.cwd throws in the child).
    const nodeArgs = ["--import", "data:text/javascript,process.cwd=()=>{throw new Error('cwd is gone')}"];
    const plain = await cairn(["status"], { nodeArgs, env: { CAIRN_DEBUG: "" } });
    expect(plain.code).toBe(3);
    expect(plain.stderr).toBe("cairn: unexpected error: cwd is gone\n(set CAIRN_DEBUG=1 for details; please report it)\n");
    const debug = await cairn(["status"], { nodeArgs, env: { CAIRN_DEBUG: "1" } });
    expect(debug.code).toBe(3);
    expect(debug.stderr).toMatch(/^cairn: unexpected error: cwd is gone\n\(please report it with the stack below\)\nError: cwd is gone\n\s+at /);
    expect(debug.stderr).not.toContain("set CAIRN_DEBUG");
  });

  it("set-status with an unknown status is a usage error (exit 2) listing the statuses, checked before the id", async () => {
    const root = await project();
    for (const id of ["ctx", "no-such-entry"]) {
      const r = await cairn(["--root", root, "set-status", id, "bogus"]);
      expect(r.code, id).toBe(2);
      expect(r.stderr, id).toContain('cairn: unknown status "bogus"; expected one of observed, inferred, hypothesis, verified, disputed, superseded');
    }
    expect((await cairn(["--root", root, "set-status", "ctx", "verified"])).code).toBe(0);
  });

  it("a UTF-16 file says UTF-16 (expected UTF-8); a bare-CR file says line endings", () => {
    const text = entryText();
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(text, "utf16le").swap16();
    for (const [bytes, order] of [[le, "little-endian"], [be, "big-endian"], [Buffer.from(text, "utf16le"), "little-endian"]] as const) {
      const d = parseEntry(bytes, { file: "knowledge/x.md" }).diagnostics;
      expect(d).toMatchObject([{ rule: "encoding-invalid", severity: "error", message: expect.stringContaining(`UTF-16 (${order}) text; expected UTF-8`) }]);
    }
    const cr = parseEntry(Buffer.from(text.replace(/\n/g, "\r")), { file: "knowledge/x.md" }).diagnostics;
    expect(cr).toMatchObject([{ rule: "line-endings", line: 1, column: 4, message: expect.stringContaining("bare CR") }]);
    // CRLF and LF stay fine; a stray CR inside the body does not hide the frontmatter either.
    expect(parseEntry(Buffer.from(text.replace(/\n/g, "\r\n")), { file: "knowledge/x.md" }).diagnostics).toEqual([]);
    expect(parseEntry(Buffer.from(text.replace("Evidence:", "\rEvidence:")), { file: "knowledge/x.md" }).entry).toBeDefined();
  });

  it("a BOM at the start of cairn.config.json is accepted", async () => {
    const root = await testdir({ "cairn.config.json": `\uFEFF${JSON.stringify({ decayAfterRuns: 3 })}` });
    expect((await loadConfig(root)).decayAfterRuns).toBe(3);
  });

  it("`cairn status | head -c 100` ends quietly: no EPIPE stack trace, the command's exit code", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`knowledge/e-${String(i).padStart(3, "0")}.md`] = entryText({ finding: `Finding number ${i} about retries, timeouts and the upstream context.` });
    const root = await project(files);
    // A real shell pipe: head exits after 100 bytes and the rest of cairn's output meets a closed pipe.
    const script = `"${process.execPath}" "${CLI}" --root "${root}" status --json | head -c 100 > /dev/null; echo "rc=\${PIPESTATUS[0]}"`;
    const child = spawn("bash", ["-c", script], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise((resolve) => child.on("close", resolve));
    const code = Number(/rc=(\d+)/.exec(stdout)?.[1]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("init refuses a file where a directory belongs", () => {
  it("says which path to move", async () => {
    const root = await testdir({ "knowledge/.ledger": "a file" });
    await mkdir(path.join(root, "knowledge/archive"));
    const kb = await openKnowledgeBase({ root });
    await expect(kb.init()).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("knowledge/.ledger in") });
    await rm(path.join(root, "knowledge/.ledger"));
    expect((await kb.init()).created).toContain("knowledge/.ledger/");
  });
});
