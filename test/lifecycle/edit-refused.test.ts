/** An independent confirmation of an entry whose frontmatter cairn will not edit is still recorded, and the warning says why the file was not updated. */
import { describe, expect, it } from "vitest";
import { events, project, read } from "./setup.js";

const TOKEN = "Token parsing splits on dots without validating the segment count.";
// A hand edit the surgical editor refuses: a YAML alias to lastConfirmed's anchor.
const ALIASED = `---\nlastConfirmed: &d 2026-02-12\nprovenance: independent\ncreated: *d\n---\n${TOKEN}\n\nEvidence: src/auth.ts:1-2, handleRequest()\nVerify: grep for split in src/auth.ts\n`;

describe("a refused frontmatter edit", () => {
  it("keeps the confirmation and its event; the warning names the refusal, not a removal", async () => {
    const { kb, root } = await project({ "knowledge/token-split.md": ALIASED });
    const result = await kb.recordFindings("r1", [{ agent: "perf", text: TOKEN }]);
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: "token-split", provenance: "independent", state: "active" })]);
    const warnings = result.warnings.filter((w) => !w.startsWith('run "r1" has no recorded injection'));
    expect(warnings).toEqual([expect.stringMatching(/^"token-split" was confirmed independently, but its frontmatter could not be edited \(.*alias.*\): its lastConfirmed and provenance in the file are unchanged; the ledger records the confirmation/)]);
    expect(warnings.join("\n")).not.toMatch(/removed/);
    expect(await read(root, "knowledge/token-split.md")).toBe(ALIASED);
    expect((await events(kb)).filter((e) => e.type === "confirmed")).toEqual([expect.objectContaining({ entry: "token-split", agent: "perf", provenance: "independent" })]);
    expect((await kb.status()).entries.find((e) => e.id === "token-split")!.confirmations).toEqual({ independent: 1, primed: 0 });
  });
});
