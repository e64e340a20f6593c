/** The agent's keywords order the entries a review supports; they never decide which fill the slots. */
import { describe, expect, it } from "vitest";
import { focusResponses } from "../../src/retrieval/focus.js";
import type { SearchResponse, SearchResult } from "../../src/retrieval/search.js";

const hit = (id: string, score: number): SearchResult => ({ id, path: `knowledge/${id}.md`, state: "active", score, status: "observed", explain: { relevant: true } });
const response = (ids: string[]): SearchResponse => ({ results: ids.map((id, i) => hit(id, 1 / (61 + i))), warnings: [], mode: "lexical" });

describe("focusResponses", () => {
  const full = response(["a", "b", "c", "d", "e", "f", "g"]);
  const keywords = response(["f", "e", "x"]);

  it("re-ranks only within the slots: an entry just past them cannot overtake the last one on a keyword match", () => {
    const ids = focusResponses(full, keywords, 5).results.map((r) => r.id);
    expect(ids.slice(0, 5).sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(ids.slice(5)).toEqual(["f", "g"]);
    // Without a window (the merge before), "f" (full rank 6, keyword rank 1) took "e"'s place.
    expect(focusResponses(full, keywords).results.slice(0, 5).map((r) => r.id)).toContain("f");
  });

  it("counts the slots among entries not injected earlier in the run, and lists keyword-only matches below the floor", () => {
    const focused = focusResponses(full, keywords, 2, new Set(["a"]));
    expect(focused.results.map((r) => r.id)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(focused.belowFloor).toBeUndefined();
    const explained = focusResponses({ ...full, belowFloor: [] }, keywords, 5);
    expect(explained.belowFloor?.map((r) => r.id)).toEqual(["x"]);
  });
});
