/** An agent shown an entry that is gone by record/compound time is primed, not independent: what it was shown cannot be compared, so it fails closed. */
import { describe, expect, it } from "vitest";
import { git } from "../../examples/scenario.js";
import { events, project, read } from "./setup.js";

const SOURCE = "export function handleRequest(req: any) {\n  const res = fetch(req.url);\n  return res;\n}\nexport function parseToken(t: string) {\n  return t.split(\".\");\n}\n";
const CTX = "Auth middleware swallows context cancellation errors after upstream fetch calls.";
const TOKEN = "Token parsing splits on dots without validating the segment count.";
const files = {
  "src/auth.ts": SOURCE,
  "knowledge/ctx-cancel.md": `---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\n${CTX}\n\nEvidence: src/auth.ts:1-4, handleRequest()\nVerify: grep for fetch in src/auth.ts\n`,
  "knowledge/token-split.md": `---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\n${TOKEN}\n\nEvidence: src/auth.ts:5-7, parseToken()\nVerify: grep for split in src/auth.ts\n`,
};

async function repo() {
  const p = await project(files);
  git(p.root, ["init", "-q", "-b", "main"]);
  git(p.root, ["add", "-A"]);
  git(p.root, ["commit", "-qm", "init"]);
  return p;
}

describe("an injected entry that is gone primes its agent", () => {
  it("compound after `retract` does not re-create the retracted false positive as 'flagged independently by 2 agents'", async () => {
    const { kb } = await repo();
    for (const agent of ["a", "b"]) expect((await kb.inject({ run: "r1", agent, keywords: ["context", "cancellation"], limit: 1 })).entries.map((e) => e.id)).toEqual(["ctx-cancel"]);
    expect(await kb.retract("ctx-cancel")).toMatchObject({ kind: "done" });
    const candidate = { text: CTX, agents: ["a", "b"], evidence: ["src/auth.ts:1-4, handleRequest()"], verify: ["grep for fetch in src/auth.ts"], durable: true };
    const result = await kb.compound("r1", [candidate]);
    expect(result.created).toEqual([]);
    expect(result.skipped).toEqual([
      { text: CTX, reason: expect.stringMatching(/^flagged independently by 0 agents; compounding needs 2\+ \(a had "ctx-cancel" injected, no longer in the knowledge base; b had "ctx-cancel" injected/) },
    ]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^"ctx-cancel" was injected into a in run "r1" but is no longer in the knowledge base .*: they count as primed$/),
      expect.stringMatching(/^"ctx-cancel" was injected into b in run "r1"/),
    ]);
    expect((await events(kb)).filter((e) => e.type === "compounded" || e.type === "created")).toEqual([]);
    // The control: two agents that were shown nothing still compound it.
    for (const agent of ["c", "d"]) await kb.inject({ run: "r2", agent, keywords: ["kubernetes"] });
    expect((await kb.compound("r2", [{ ...candidate, agents: ["c", "d"] }])).created).toHaveLength(1);
  });

  it("record after the entry's file was renamed (a new id) is primed by the old id, with a warning; another agent's independent find still counts", async () => {
    const { kb, root } = await repo();
    expect((await kb.inject({ run: "r1", agent: "a", keywords: ["context", "cancellation"], limit: 1 })).entries.map((e) => e.id)).toEqual(["ctx-cancel"]);
    expect((await kb.inject({ run: "r1", agent: "b", keywords: ["token", "segment"], limit: 1 })).entries.map((e) => e.id)).toEqual(["token-split"]);
    git(root, ["mv", "knowledge/ctx-cancel.md", "knowledge/auth-ctx-cancel.md"]);
    git(root, ["commit", "-qm", "rename"]);
    const result = await kb.recordFindings("r1", [
      { agent: "a", text: CTX },
      // The control: b was shown only token-split, which is still there; its re-discovery is independent.
      { agent: "b", text: CTX },
    ]);
    expect(result.confirmations).toEqual([
      expect.objectContaining({ agent: "a", entry: "auth-ctx-cancel", provenance: "primed", primedByMissing: ["ctx-cancel"] }),
      expect.objectContaining({ agent: "b", entry: "auth-ctx-cancel", provenance: "independent" }),
    ]);
    expect(result.confirmations[1]!.primedByMissing).toBeUndefined();
    expect(result.warnings).toEqual([expect.stringMatching(/^"ctx-cancel" was injected into a in run "r1" but is no longer in the knowledge base \(retracted, renamed or moved by hand\)/)]);
    expect((await events(kb)).filter((e) => e.type === "confirmed").map((e) => [e.agent, e.provenance])).toEqual([
      ["a", "primed"],
      ["b", "independent"],
    ]);
    expect(await read(root, "knowledge/auth-ctx-cancel.md")).toContain("lastConfirmed: 2026-03-01");
  });
});
