import { describe, expect, it } from "vitest";
import { bestMatch, matchScore } from "../../src/lifecycle/match.js";
import { databaseEntries, entry, fm, project } from "./setup.js";

describe("match", () => {
  it("scores by the mean of matched lexical share and cosine in hybrid mode, by the lexical share alone in lexical mode", () => {
    const base = { id: "x", path: "knowledge/x.md", state: "active" as const, score: 0.01, status: "observed" };
    const both = { ...base, explain: { relevant: true, lexical: { rank: 1, score: 3, matched: 0.8 }, vector: { rank: 2, similarity: 0.6 } } };
    expect(matchScore(both, "hybrid")).toBeCloseTo(0.7);
    expect(matchScore(both, "lexical")).toBe(0.8);
    expect(matchScore({ ...base, explain: { relevant: true, lexical: { rank: 1, score: 3, matched: 0.9 } } }, "hybrid")).toBeCloseTo(0.45);
    expect(matchScore({ ...base, explain: { relevant: false } }, "lexical")).toBe(0);
  });

  it("returns the best candidate always, and a match only at or above the threshold", async () => {
    const { kb } = await project(databaseEntries(8), { embedder: null });
    const search = kb.search.bind(kb);
    const strong = await bestMatch(search, "Database migrations run without a lock and race on startup.", { threshold: 0.5 });
    expect(strong.match).toMatchObject({ id: "db-4", state: "active" });
    expect(strong.best).toEqual(strong.match);
    const weak = await bestMatch(search, "Image thumbnails are resized on the request thread, which blocks database writes.", { threshold: 0.5 });
    expect(weak.match).toBeNull();
    expect(weak.best!.score).toBeLessThan(0.5);
    expect((await bestMatch(search, "Image thumbnails are resized on the request thread, which blocks database writes.", { threshold: 0 })).match).toEqual(weak.best);
  });

  it("sees archived entries only when asked", async () => {
    const { kb } = await project({
      "knowledge/archive/cron.md": entry("Cron jobs overlap when a run takes longer than the interval.", { fm: fm("archived: 2026-02-20", "archivedReason: decayed") }),
    });
    const search = kb.search.bind(kb);
    expect((await bestMatch(search, "Cron jobs overlap when one run takes longer than the interval.", { threshold: 0.5 })).match).toBeNull();
    expect((await bestMatch(search, "Cron jobs overlap when one run takes longer than the interval.", { threshold: 0.5, includeArchived: true })).match).toMatchObject({
      id: "cron",
      state: "archived",
    });
  });
});
