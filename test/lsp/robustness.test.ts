/** What `cairn lsp` must survive or refuse: buffers outside the repository, links leaving it, huge and hostile input. */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { CompletionList, Hover } from "vscode-languageserver-protocol";
import { describe, expect, it } from "vitest";
import { tempDir } from "../diff/repo.js";
import { codes, startLsp, type LspClient } from "./client.js";
import { ANCHOR_AT, AUTH_TS, entry, evidenceLine, project, sharedServer } from "./fixture.js";

const at = (uri: string, line: number, character: number) => ({ textDocument: { uri }, position: { line, character } });

/** The server still answers: a hover on a healthy entry shows its anchor. */
async function stillAnswers(client: LspClient, uri: string): Promise<void> {
  const hover = await client.request<Hover>("textDocument/hover", at(uri, evidenceLine(), ANCHOR_AT));
  expect((hover.contents as { value: string }).value).toContain("export function handleRequest()");
}

describe("cairn lsp: containment, hostile and invalid input", () => {
  const server = sharedServer();

  it("leaves a buffer outside the repository alone, and reads nothing through a link leaving it", async () => {
    const { repo, client } = server();
    const outside = await tempDir("cairn-outside-");
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const foreign = entry({ finding: `Leaks ${token} from the build.` });
    await mkdir(path.join(outside, "knowledge"), { recursive: true });
    await mkdir(path.join(outside, "src"), { recursive: true });
    await writeFile(path.join(outside, "src/auth.ts"), AUTH_TS);
    await writeFile(path.join(outside, "knowledge/foreign.md"), foreign);
    await symlink(path.join(outside, "knowledge/foreign.md"), path.join(repo.dir, "knowledge/linked.md"));

    const far = client.open(pathToFileURL(path.join(outside, "knowledge/foreign.md")).href, foreign);
    const linked = client.open("knowledge/linked.md", foreign);
    const healthy = client.open("knowledge/healthy.md", entry());
    expect(await client.diagnostics(healthy, () => true)).toEqual([]);

    // The link gets one problem, and nothing of its text is checked (the secret is not reported): it is not read as an entry.
    const [problem, ...more] = await client.diagnostics(linked, (l) => l.length > 0);
    expect(more).toEqual([]);
    expect(problem).toMatchObject({ code: "symlink-outside", severity: 1, range: { start: { line: 0, character: 0 } } });
    expect(problem!.message).toContain(outside);
    // The buffer outside the root is not an entry of this knowledge base: no diagnostics at all.
    expect(client.published.filter((p) => p.uri === far)).toEqual([]);

    for (const uri of [far, linked]) {
      expect(await client.request("textDocument/hover", at(uri, evidenceLine(), ANCHOR_AT))).toBeNull();
      expect(await client.request("textDocument/definition", at(uri, evidenceLine(), ANCHOR_AT))).toBeNull();
      expect(await client.request<CompletionList>("textDocument/completion", at(uri, 3, 0))).toEqual({ isIncomplete: false, items: [] });
      expect(await client.request("textDocument/codeAction", { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 9, character: 0 } }, context: { diagnostics: [] } })).toEqual([]);
    }
    await stillAnswers(client, healthy);
    for (const uri of [far, linked, healthy]) client.close(uri);
  });


  it("refuses a huge buffer, checks a hostile one in bounded time, and keeps answering", async () => {
    const { client } = server();
    const healthy = client.open("knowledge/healthy.md", entry());
    await client.diagnostics(healthy, () => true);

    const huge = client.open("knowledge/huge.md", entry({ body: `${"x".repeat(100)}\n`.repeat(30_000) }));
    expect(codes(await client.diagnostics(huge, (l) => l.length > 0))).toEqual(["file-too-large"]);
    expect(await client.request("textDocument/hover", at(huge, evidenceLine(), ANCHOR_AT))).toBeNull();

    // Many anchors, secrets-like and injection-like text, unclosed comments: linear-time rules, capped output.
    const hostile = entry({ evidence: Array.from({ length: 3000 }, (_, i) => `src/f${i}.ts:${i}`).join(", "), body: `${"<!-- cairn-disable ".repeat(2000)}\n${"AKIA".repeat(5000)}\n${"[".repeat(20_000)}\n` });
    const started = performance.now();
    const uri = client.open("knowledge/hostile.md", hostile);
    const list = await client.diagnostics(uri, (l) => l.length > 0, 20_000);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(list.filter((d) => d.code === "anchor-unresolved").length).toBeLessThanOrEqual(61);
    await stillAnswers(client, healthy);
    for (const done of [huge, uri]) client.close(done);
  });

  it("a buffer whose URI no path can hold (%00, a name too long) affects only itself: the others keep their diagnostics", async () => {
    const { client } = server();
    const nul = client.open(`${client.uri("knowledge")}/a%00b.md`, entry());
    const long = client.open(client.uri(`knowledge/${"n".repeat(5000)}.md`), entry());
    // Opened after the bad ones, and edited: each pass must still reach it.
    const healthy = client.open("knowledge/healthy.md", entry());
    expect(await client.diagnostics(healthy, () => true)).toEqual([]);
    client.change(healthy, entry({ fm: "status: maybe" }), 2);
    expect(codes(await client.diagnostics(healthy, (l) => l.length > 0))).toEqual(["frontmatter-invalid"]);
    expect(client.published.filter((p) => p.uri === nul || p.uri === long)).toEqual([]);
    expect(client.stderr()).not.toMatch(/null bytes|ENAMETOOLONG/);
    for (const uri of [nul, long, healthy]) client.close(uri);
  });

  it("answers malformed requests with nothing or an error, never dies, and writes no stack trace", async () => {
    const { client } = server();
    const healthy = client.open("knowledge/healthy.md", entry());
    await client.diagnostics(healthy, () => true);

    expect(await client.request("textDocument/hover", at(healthy, -1, 5))).toBeNull();
    expect(await client.request("textDocument/hover", at(healthy, 1e12, 1e12))).toBeNull();
    expect(await client.request("textDocument/hover", { textDocument: 5, position: "x" })).toBeNull();
    expect(await client.request("textDocument/definition", {})).toBeNull();
    expect(await client.request("textDocument/hover", at(client.uri("knowledge/never-opened.md"), 6, 12))).toBeNull();
    expect(await client.request("textDocument/codeAction", { textDocument: { uri: healthy }, range: null, context: 7 })).toEqual([]);
    expect(await client.request<CompletionList>("textDocument/completion", at(healthy, 999, 0))).toEqual({ isIncomplete: false, items: [] });
    await expect(client.request("cairn/no-such-method", {})).rejects.toThrow(/Unhandled method/);
    void client.connection.sendNotification("textDocument/didChange", { textDocument: { uri: healthy, version: 9 }, contentChanges: "not a list" });
    void client.connection.sendNotification("textDocument/didChange", { textDocument: { uri: client.uri("knowledge/nope.md"), version: 2 }, contentChanges: [{ text: "x" }] });
    void client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: "not a uri", type: 1 }, { uri: 42 }] });
    client.child.stdin.write("Content-Length: 10\r\n\r\n{not json}");

    await stillAnswers(client, healthy);
    client.change(healthy, entry({ fm: "status: maybe" }), 10);
    expect(codes(await client.diagnostics(healthy, (l) => l.length > 0))).toEqual(["frontmatter-invalid"]);
    expect(client.child.exitCode).toBeNull();
    expect(client.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe("cairn lsp: the root", () => {
  it("takes the root from the client's workspace folder when --root is not given", async () => {
    const repo = await project();
    const client = await startLsp(repo.dir, { args: [], cwd: os.tmpdir() });
    const uri = client.open("knowledge/rooted.md", entry({ evidence: "src/gone.ts:3 — not there." }));
    // The project's cairn.config.json (anchor-unresolved: warning) is in force: the server opened the client's root.
    expect(await client.diagnostics(uri, (l) => l.length > 0)).toMatchObject([{ code: "anchor-unresolved", severity: 2 }]);
  });
});
