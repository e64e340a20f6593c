/** Completion in entry frontmatter: keys with their schema docs, enum values, entry ids — through a real LSP client. */
import type { CompletionItem, CompletionList } from "vscode-languageserver-protocol";
import { describe, expect, it } from "vitest";
import type { LspClient } from "./client.js";
import { entry, sharedServer } from "./fixture.js";

async function completeAt(client: LspClient, uri: string, line: number, character: number): Promise<CompletionItem[]> {
  const list = await client.request<CompletionList>("textDocument/completion", { textDocument: { uri }, position: { line, character } });
  return list.items;
}

describe("cairn lsp: completion", () => {
  const server = sharedServer();

  it("offers the frontmatter keys not yet written, with their docs, only at a key position in the frontmatter", async () => {
    const { client } = server();
    const uri = client.open("knowledge/keys.md", entry({ fm: "tags: [go]\nsta" }));
    const items = await completeAt(client, uri, 4, 3);
    const labels = items.map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(["status", "supersedes", "contradicts", "title", "agents", "confidence"]));
    expect(labels).not.toContain("lastConfirmed");
    expect(labels).not.toContain("tags");
    const status = items.find((i) => i.label === "status")!;
    expect(status.documentation).toEqual({ kind: "markdown", value: "`status`: Claim lifecycle status (default observed)." });
    expect(status.textEdit).toEqual({ range: { start: { line: 4, character: 0 }, end: { line: 4, character: 3 } }, newText: "status: " });

    // The body is not frontmatter; a value position is not a key position.
    expect(await completeAt(client, uri, 6, 0)).toEqual([]);
    expect(await completeAt(client, uri, 3, 7)).toEqual([]);
    client.close(uri);
  });

  it("offers provenance and status values, and today's date for date keys", async () => {
    const { client } = server();
    const uri = client.open("knowledge/values.md", "---\nlastConfirmed: \nprovenance: \nstatus: ver\n---\n");
    expect((await completeAt(client, uri, 2, 12)).map((i) => i.label)).toEqual(["independent", "primed"]);
    const status = await completeAt(client, uri, 3, 11);
    expect(status.map((i) => i.label)).toEqual(["observed", "inferred", "hypothesis", "verified", "disputed", "superseded"]);
    expect(status.find((i) => i.label === "verified")!.textEdit).toEqual({ range: { start: { line: 3, character: 8 }, end: { line: 3, character: 11 } }, newText: "verified" });
    expect((await completeAt(client, uri, 1, 15)).map((i) => i.label)).toEqual([new Date().toISOString().slice(0, 10)]);
    client.close(uri);
  });

  it("offers entry ids (disk, archive, unsaved buffers; not the entry itself) in supersedes / supersededBy / contradicts", async () => {
    const { client } = server();
    client.open("knowledge/unsaved-draft.md", entry());
    const uri = client.open("knowledge/links.md", "---\nsupersedes: \ncontradicts: [other, \nsupersededBy:\n  - arch\n---\n");
    const ids = await completeAt(client, uri, 1, 12);
    expect(ids.map((i) => i.label)).toEqual(["archived-one", "other", "unsaved-draft"]);
    expect(ids.find((i) => i.label === "other")).toMatchObject({ detail: "The other entry" });
    expect(ids.find((i) => i.label === "archived-one")).toMatchObject({ detail: expect.stringContaining("(archived)") });
    expect((await completeAt(client, uri, 2, 21)).map((i) => i.label)).toEqual(["archived-one", "other", "unsaved-draft"]);
    const item = await completeAt(client, uri, 4, 8);
    expect(item.map((i) => i.label)).toEqual(["archived-one"]);
    expect(item[0]!.textEdit).toEqual({ range: { start: { line: 4, character: 4 }, end: { line: 4, character: 8 } }, newText: "archived-one" });
  });
});
