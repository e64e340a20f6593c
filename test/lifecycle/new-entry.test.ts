/** `newEntry`'s further frontmatter keys: written as given, the keys cairn owns refused, nothing written on a refusal. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { project } from "./setup.js";

const BASE = { slug: "cache-tenant", finding: "Cache keys omit the tenant id.", evidence: ["src/auth.ts"], verify: ["Check the cache key."] };

describe("newEntry: further frontmatter keys", () => {
  it("writes them after cairn's keys, in their order", async () => {
    const { kb, root } = await project({}, { embedder: null });
    const result = await kb.newEntry({ ...BASE, tags: ["cache"], frontmatter: { confidence: 0.7, owner: "team-a", reviewedBy: ["ada", "bo"], stale: false } });
    expect(result.kind).toBe("created");
    const text = await readFile(path.join(root, "knowledge/cache-tenant.md"), "utf8");
    expect(text).toMatch(/\ntags: \[cache\]\nconfidence: 0\.7\nowner: team-a\nreviewedBy: \[ada, bo\]\nstale: false\n---\n/);
  });

  it("refuses the keys cairn sets or takes as fields, keys that are not plain, and values it cannot write, writing nothing", async () => {
    const { kb, root } = await project({}, { embedder: null });
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ lastConfirmed: "2020-01-01" }, /"lastConfirmed" is set by cairn new/],
      [{ provenance: "primed" }, /"provenance" is set by cairn new/],
      [{ agents: ["a"] }, /"agents" is set by cairn new or by its own field/],
      [{ "bad key": "x" }, /"bad key" is not a plain key/],
      [{ meta: { a: 1 } }, /"meta" holds a mapping; expected a string, number, boolean or list of strings/],
      [{ n: Number.NaN }, /"n" holds a number that is not finite/],
      [{ list: [1, 2] }, /"list" holds a list of other things than strings/],
    ];
    for (const [frontmatter, message] of refusals) {
      const result = await kb.newEntry({ ...BASE, frontmatter: frontmatter as never });
      expect(result).toEqual({ kind: "refused", problems: expect.stringMatching(message) });
    }
    expect((await readdir(path.join(root, "knowledge"))).filter((f) => f.endsWith(".md"))).toEqual([]);
  });
});
