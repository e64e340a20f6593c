import { describe, expect, it } from "vitest";
import { topK } from "../../../src/indexing/lexical/top-k.js";

describe("topK", () => {
  const scores: Array<[string, number]> = [["d", 1], ["b", 3], ["a", 3], ["c", 2], ["e", 0.5]];

  it("returns the best entries, best first, ties by ascending id", () => {
    expect(topK(scores, 3)).toEqual([["a", 3], ["b", 3], ["c", 2]]);
    expect(topK(scores, 10)).toHaveLength(5);
    expect(topK(scores, 0)).toEqual([]);
  });

  it("consults the filter only for entries that could enter the top", () => {
    const asked: string[] = [];
    const top = topK(scores, 1, (id) => {
      asked.push(id);
      return id !== "a";
    });
    expect(top).toEqual([["b", 3]]);
    expect(asked).not.toContain("e");
  });
});
