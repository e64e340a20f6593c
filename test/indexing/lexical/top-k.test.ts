import { describe, expect, it } from "vitest";
import { topK, topKOf } from "../../../src/indexing/lexical/top-k.js";

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

  it("over candidates whose ids are costly, asks for an id only to filter or to break a tie", () => {
    const ids = ["d", "b", "a", "c", "e", "f"];
    const score = [1, 3, 3, 2, 0.5, 0.25];
    const asked: number[] = [];
    const idOf = (c: number) => (asked.push(c), ids[c]!);
    expect(topKOf([0, 1, 2, 3, 4, 5], 2, (c) => score[c]!, idOf).map((c) => ids[c])).toEqual(["a", "b"]);
    // Only the two candidates tied at 3 were named; the others were placed by their scores alone.
    expect(new Set(asked)).toEqual(new Set([1, 2]));
  });
});
