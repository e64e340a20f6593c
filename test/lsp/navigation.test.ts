/** Hover and go to definition on evidence anchors, through a real LSP client over stdio. */
import type { Hover, Location } from "vscode-languageserver-protocol";
import { describe, expect, it } from "vitest";
import { startLsp } from "./client.js";
import { ANCHOR_AT, AUTH_TS, entry, evidenceLine, project, pushDown, sharedServer } from "./fixture.js";

const at = (uri: string, line: number, character: number) => ({ textDocument: { uri }, position: { line, character } });

describe("cairn lsp: hover", () => {
  const server = sharedServer({ "scripts/build.sh": "#!/bin/sh\nset -e\nmake all\n" });

  it("shows the anchored lines in a code block with the file's language, path and range; says why an anchor does not resolve", async () => {
    const { client } = server();
    const uri = client.open("knowledge/hover.md", entry({ evidence: "src/auth.ts:1-3, handleRequest() — ctx is dropped.\n- scripts/build.sh:2-3 — no error trap.\n- src/missing.ts:4 — gone." }));
    await client.diagnostics(uri, (l) => l.length > 0);

    const symbol = await client.request<Hover>("textDocument/hover", at(uri, evidenceLine(), ANCHOR_AT + 3));
    expect(symbol.contents).toEqual({
      kind: "markdown",
      value: "**src/auth.ts:1-3** — definition of `handleRequest`\n\n```typescript\nexport function handleRequest() {\n  return fetch('x');\n}\n```",
    });
    expect(symbol.range).toEqual({ start: { line: evidenceLine(), character: ANCHOR_AT }, end: { line: evidenceLine(), character: ANCHOR_AT + "src/auth.ts:1-3, handleRequest()".length } });

    const lines = await client.request<Hover>("textDocument/hover", at(uri, evidenceLine() + 1, 4));
    expect((lines.contents as { value: string }).value).toBe("**scripts/build.sh:2-3**\n\n```shell\nset -e\nmake all\n```");

    const broken = await client.request<Hover>("textDocument/hover", at(uri, evidenceLine() + 2, 4));
    const text = (broken.contents as { value: string }).value;
    expect(text).toMatch(/^\*\*Unresolved anchor\*\* `src\/missing\.ts:4`/);
    expect(text).toContain("`anchor-unresolved`: src/missing.ts matches no file under the repository root");

    // Not on an anchor: nothing to show.
    expect(await client.request("textDocument/hover", at(uri, 4, 3))).toBeNull();
  });
});

describe("cairn lsp: go to definition", () => {
  it("jumps to the anchored file and range, and a symbol anchor to its definition after the lines moved", async () => {
    const repo = await project();
    const client = await startLsp(repo.dir);
    const uri = client.open("knowledge/jump.md", entry({ evidence: "src/auth.ts:1-3, handleRequest() — ctx is dropped.\n- src/auth.ts:2 — the call.\n- src/*.ts — every handler." }));
    expect(await client.diagnostics(uri, () => true)).toEqual([]);
    const file = client.uri("src/auth.ts");

    expect(await client.request<Location[]>("textDocument/definition", at(uri, evidenceLine(), ANCHOR_AT))).toEqual([{ uri: file, range: { start: { line: 0, character: 0 }, end: { line: 2, character: 1 } } }]);
    expect(await client.request<Location[]>("textDocument/definition", at(uri, evidenceLine() + 1, 3))).toEqual([{ uri: file, range: { start: { line: 1, character: 0 }, end: { line: 1, character: "  return fetch('x');".length } } }]);
    expect(await client.request<Location[]>("textDocument/definition", at(uri, evidenceLine() + 2, 3))).toEqual([{ uri: file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }]);

    await pushDown(repo, "src/auth.ts", AUTH_TS, 4);
    await client.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: [{ uri: file, type: 2 }] });
    await client.diagnostics(uri, (l) => l.some((d) => d.code === "anchor-moved"));
    // The anchor still says 1-3; the definition is at 5-7 now.
    expect(await client.request<Location[]>("textDocument/definition", at(uri, evidenceLine(), ANCHOR_AT))).toEqual([{ uri: file, range: { start: { line: 4, character: 0 }, end: { line: 6, character: 1 } } }]);
    const hover = await client.request<Hover>("textDocument/hover", at(uri, evidenceLine(), ANCHOR_AT));
    expect((hover.contents as { value: string }).value).toMatch(/^\*\*src\/auth\.ts:5-7\*\* — definition of `handleRequest`[\s\S]*`anchor-moved`: the cited lines 1-3 no longer hold `handleRequest`/);
  });
});
