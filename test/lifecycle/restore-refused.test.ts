/** A restore that is refused is reported as refused, not "restored", and a retry can still do it once the obstacle is gone. */
import { rename } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { events, fm, project, read } from "./setup.js";

const SOURCE = "export function handleRequest(req: any) {\n  const res = fetch(req.url);\n  return res;\n}\nexport function parseToken(t: string) {\n  return t.split(\".\");\n}\n";
const CTX = "Auth middleware swallows context cancellation errors after upstream fetch calls.";
const files = {
  "src/auth.ts": SOURCE,
  "knowledge/archive/ctx-cancel.md": `---\n${fm("archived: 2026-02-20", "archivedReason: decayed")}\n---\n${CTX}\n\nEvidence: src/auth.ts:1-4, handleRequest()\nVerify: grep for fetch in src/auth.ts\n`,
  // A new entry that happens to reuse the file name, under another id: the archived one cannot move back.
  "knowledge/ctx-cancel.md": "---\nid: ctx-cancel-v2\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\nHandlers drop the request context before calling upstream services.\n\nEvidence: src/auth.ts:5-7, parseToken()\nVerify: grep for split in src/auth.ts\n",
};

describe("a refused restore", () => {
  it("record: not in `restored`, a warning says why, nothing is recorded; the retry after the obstacle is moved restores it", async () => {
    const { kb, root } = await project(files);
    const finding = { agent: "z", text: CTX, entry: "ctx-cancel" };
    const result = await kb.recordFindings("r2", [finding]);
    expect(result.restored).toEqual([]);
    expect(result.confirmations).toEqual([]);
    expect(result.unmatched).toEqual([expect.objectContaining({ index: 0, reason: expect.stringMatching(/^matches archived entry "ctx-cancel", which could not be restored: .*knowledge\/ctx-cancel\.md already exists/) })]);
    expect(result.warnings).toContainEqual(expect.stringMatching(/^"ctx-cancel" was not restored: .*already exists/));
    expect(await read(root, "knowledge/archive/ctx-cancel.md")).toContain("archived: 2026-02-20");
    expect((await events(kb)).filter((e) => e.type === "confirmed" || e.type === "restored")).toEqual([]);
    await rename(path.join(root, "knowledge/ctx-cancel.md"), path.join(root, "knowledge/ctx-cancel-v2.md"));
    const retry = await kb.recordFindings("r2", [finding]);
    expect(retry).toMatchObject({ restored: ["ctx-cancel"], confirmations: [expect.objectContaining({ entry: "ctx-cancel", state: "restored" })], alreadyRecorded: [] });
    expect(await read(root, "knowledge/ctx-cancel.md")).toContain(CTX);
  });

  it("compound: skipped with the reason, no `compounded` event, so the retry restores it", async () => {
    const { kb, root } = await project(files);
    const candidate = { text: CTX, agents: ["a", "b"], evidence: ["src/auth.ts:1-4, handleRequest()"], verify: ["grep for fetch in src/auth.ts"], durable: true };
    const result = await kb.compound("r1", [candidate]);
    expect(result).toMatchObject({ created: [], restored: [] });
    expect(result.skipped).toEqual([{ text: CTX, reason: expect.stringMatching(/^matches archived entry "ctx-cancel", which could not be restored: .*already exists/) }]);
    expect(result.warnings).toContainEqual(expect.stringMatching(/^"ctx-cancel" was not restored/));
    expect((await events(kb)).filter((e) => e.type === "compounded" || e.type === "restored")).toEqual([]);
    await rename(path.join(root, "knowledge/ctx-cancel.md"), path.join(root, "knowledge/ctx-cancel-v2.md"));
    expect(await kb.compound("r1", [candidate])).toMatchObject({ restored: ["ctx-cancel"], skipped: [] });
    expect(await read(root, "knowledge/ctx-cancel.md")).toContain(CTX);
  });
});
