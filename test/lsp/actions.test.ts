/** Code actions: `check --fix`'s anchor edits as quick fixes and a fix-all source action, through a real LSP client. */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CodeAction, Diagnostic } from "vscode-languageserver-protocol";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { startLsp } from "./client.js";
import { ANCHOR_AT, AUTH_TS, applyEdits, entry, evidenceLine, project, pushDown } from "./fixture.js";

describe("cairn lsp: code actions", () => {
  it("a moved anchor gets a quick fix whose edit yields a clean file, the same edit check --fix writes", async () => {
    const repo = await project();
    await pushDown(repo, "src/auth.ts", AUTH_TS, 4);
    const client = await startLsp(repo.dir);
    const text = entry({ evidence: "src/auth.ts:1-3, handleRequest() — ctx is dropped.\n- src/auth.ts — the whole file." });
    const uri = client.open("knowledge/moved.md", text);
    const diagnostics = await client.diagnostics(uri, (l) => l.length > 0);
    expect(diagnostics.map((d) => d.code)).toEqual(["anchor-moved"]);
    const moved = diagnostics[0] as Diagnostic;

    const actions = await client.request<CodeAction[]>("textDocument/codeAction", { textDocument: { uri }, range: moved.range, context: { diagnostics: [moved] } });
    const line = evidenceLine();
    const edit = { range: { start: { line, character: ANCHOR_AT + "src/auth.ts".length }, end: { line, character: ANCHOR_AT + "src/auth.ts:1-3".length } }, newText: ":5-7" };
    expect(actions).toEqual([
      { title: "Update anchor: :1-3 → :5-7", kind: "quickfix", diagnostics: [moved], isPreferred: true, edit: { changes: { [uri]: [edit] } } },
      { title: "Fix the drifted anchor in this file (cairn check --fix)", kind: "source.fixAll.cairn", edit: { changes: { [uri]: [edit] } } },
    ]);

    const fixed = applyEdits(text, actions[0]!.edit!.changes![uri]!);
    expect(fixed).toBe(text.replace("src/auth.ts:1-3,", "src/auth.ts:5-7,"));
    client.change(uri, fixed, 2);
    expect(await client.diagnostics(uri, (l) => l.length === 0)).toEqual([]);
    // Nothing left to fix, and nothing was written to disk by the server.
    expect(await client.request("textDocument/codeAction", { textDocument: { uri }, range: moved.range, context: { diagnostics: [] } })).toEqual([]);

    // `cairn check --fix` on the saved buffer's original text writes the same bytes.
    await writeFile(path.join(repo.dir, "knowledge/moved.md"), text);
    execFileSync(process.execPath, [CLI, "--root", repo.dir, "check", "--fix"], { encoding: "utf8" });
    expect(await readFile(path.join(repo.dir, "knowledge/moved.md"), "utf8")).toBe(fixed);
  });

  it("fixes every drifted anchor of the file in one source action; `only` filters the kinds", async () => {
    const repo = await project({ "lib/util.ts": "export function helper() {\n  return 1;\n}\n" });
    await pushDown(repo, "src/auth.ts", AUTH_TS, 4);
    await pushDown(repo, "lib/util.ts", "export function helper() {\n  return 1;\n}\n", 6);
    const client = await startLsp(repo.dir);
    const text = entry({ evidence: "src/auth.ts:1-3, handleRequest() — ctx is dropped.\n- lib/util.ts:1-3, helper() — the helper." });
    const uri = client.open("knowledge/two.md", text);
    expect((await client.diagnostics(uri, (l) => l.length === 2)).map((d) => d.code)).toEqual(["anchor-moved", "anchor-moved"]);

    const only = await client.request<CodeAction[]>("textDocument/codeAction", { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [], only: ["source.fixAll"] } });
    expect(only.map((a) => [a.kind, a.title])).toEqual([["source.fixAll.cairn", "Fix all 2 drifted anchors in this file (cairn check --fix)"]]);
    const fixed = applyEdits(text, only[0]!.edit!.changes![uri]!);
    expect(fixed).toBe(text.replace("src/auth.ts:1-3,", "src/auth.ts:5-7,").replace("lib/util.ts:1-3,", "lib/util.ts:7-9,"));
    client.change(uri, fixed, 2);
    expect(await client.diagnostics(uri, (l) => l.length === 0)).toEqual([]);

    const quick = await client.request<CodeAction[]>("textDocument/codeAction", { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [], only: ["quickfix"] } });
    expect(quick).toEqual([]);
  });
});
