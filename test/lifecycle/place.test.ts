/** A shared place strengthens a text match, it never makes one: an unrelated finding cited at an entry's lines is not a confirmation of it. */
import { describe, expect, it } from "vitest";
import { entry, fm, project, read } from "./setup.js";

const SOURCE = "export function handleRequest(req: any) {\n  const res = fetch(req.url);\n  return res;\n}\nexport function parseToken(t: string) {\n  return t.split(\".\");\n}\n";
const CTX = "Auth middleware swallows context cancellation errors after upstream fetch calls.";
const TOKEN = "Token parsing splits on dots without validating the segment count.";
const files = (ctxFm?: string, ctxPath = "knowledge/ctx-cancel.md") => ({
  "src/auth.ts": SOURCE,
  [ctxPath]: entry(CTX, { evidence: "src/auth.ts:1-4, handleRequest()", verify: "grep for fetch in src/auth.ts", ...(ctxFm ? { fm: ctxFm } : {}) }),
  "knowledge/token-split.md": entry(TOKEN, { evidence: "src/auth.ts:5-7, parseToken()", verify: "grep for split in src/auth.ts" }),
});
const JSDOC = { agent: "style", text: "Missing JSDoc comment on an exported function.", evidence: ["src/auth.ts:1"] };

describe("a shared place is not a match", () => {
  it("an unrelated finding at an entry's lines does not reset its decay counter (it was an independent confirmation at 0.553)", async () => {
    const { kb, root } = await project(files(), { config: { decayAfterRuns: 3, holdout: "off" } });
    for (const run of ["r1", "r2", "r3"]) expect((await kb.inject({ run, agent: "security", keywords: ["context", "cancellation"] })).entries.map((e) => e.id)).toEqual(["ctx-cancel"]);
    const result = await kb.recordFindings("r3", [JSDOC]);
    expect(result.confirmations).toEqual([]);
    expect(result.unmatched).toEqual([expect.objectContaining({ index: 0, reason: "no entry above the match threshold" })]);
    expect(result.unmatched[0]!.best?.score ?? 0).toBeLessThan(0.2);
    expect(result.archived).toEqual(["ctx-cancel"]);
    expect(await read(root, "knowledge/archive/ctx-cancel.md")).toContain(CTX);
  });

  it("nor restores an archived entry", async () => {
    const { kb, root } = await project(files(fm("archived: 2026-02-20", "archivedReason: decayed"), "knowledge/archive/ctx-cancel.md"));
    const result = await kb.recordFindings("r2", [JSDOC]);
    expect(result).toMatchObject({ confirmations: [], restored: [] });
    expect(await read(root, "knowledge/archive/ctx-cancel.md")).toContain("archived: 2026-02-20");
  });

  it("another entry's pattern found at the place of an injected entry is that entry's independent confirmation, not primed by the injected one", async () => {
    const { kb } = await project(files());
    expect((await kb.inject({ run: "r1", agent: "security", keywords: ["context", "cancellation"], limit: 1 })).entries.map((e) => e.id)).toEqual(["ctx-cancel"]);
    const result = await kb.recordFindings("r1", [{ agent: "security", text: TOKEN, evidence: ["src/auth.ts:1-4, handleRequest()"] }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "token-split", provenance: "independent" })]);
    expect(result.confirmations[0]!.primedBy).toBeUndefined();
  });

  it("still lets the place carry a paraphrase whose words lean towards the entry (the control: the place is not ignored)", async () => {
    const { kb } = await project(files());
    const paraphrase = "Upstream fetch in the handler ignores cancellation of the request context.";
    const at = await kb.recordFindings("r1", [{ agent: "ops", text: paraphrase, evidence: ["src/auth.ts:2, handleRequest()"] }], { dryRun: true });
    expect(at.confirmations).toEqual([expect.objectContaining({ entry: "ctx-cancel", provenance: "independent" })]);
    const elsewhere = await kb.recordFindings("r1", [{ agent: "ops", text: paraphrase }], { dryRun: true });
    expect(elsewhere.confirmations).toEqual([]);
    expect(elsewhere.unmatched[0]!.best).toMatchObject({ entry: "ctx-cancel" });
    expect(elsewhere.unmatched[0]!.best!.score).toBeGreaterThanOrEqual(0.2);
  });

  it("compound counts an agent shown an entry as independent for a different pattern at that entry's place", async () => {
    const { kb } = await project(files());
    for (const agent of ["a", "b"]) await kb.inject({ run: "r1", agent, keywords: ["context", "cancellation"], limit: 1 });
    const result = await kb.compound("r1", [{ text: "Request bodies are logged in full, including credentials.", agents: ["a", "b"], evidence: ["src/auth.ts:1-4, handleRequest()"], verify: ["grep for console.log in src/auth.ts"], durable: true }], { dryRun: true });
    // Not "flagged independently by 0 agents": the refusal left is the documented shared-anchor duplicate rule.
    expect(result.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^duplicates active entry "ctx-cancel" \(shares evidence anchor/)]);
  });
});
