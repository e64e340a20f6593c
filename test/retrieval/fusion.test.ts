import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FUSION,
  fuse,
  lexicalSignals,
  proseShare,
  vectorSignals,
  vectorWeightFor,
  floorReasons,
  withFloor,
  type FusionParams,
  type RankedSignal,
} from "../../src/retrieval/fusion.js";

const params = (over: Partial<FusionParams> = {}): FusionParams => ({ ...DEFAULT_FUSION, ...over });
const signal = (id: string, rank: number, relevant = true, score = 1): RankedSignal => ({ id, rank, score, relevant });

describe("fuse: weighted reciprocal-rank fusion", () => {
  it("adds weight / (k + rank) from the ranked lists and weight × strength / (k + 1) from the changed-code list", () => {
    const p = params({ k: 10, lexicalWeight: 1, anchorWeight: 2 });
    const fused = fuse(
      { lexical: [signal("a", 1), signal("b", 2)], vector: [signal("b", 1), signal("c", 2)], anchor: [signal("c", 1)] },
      p,
      0.5,
    );
    const score = Object.fromEntries(fused.map((h) => [h.id, h.score]));
    expect(score["a"]).toBeCloseTo(1 / 11, 12);
    expect(score["b"]).toBeCloseTo(1 / 12 + 0.5 / 11, 12);
    expect(score["c"]).toBeCloseTo(0.5 / 12 + 2 / 11, 12);
    expect(fused.map((h) => h.id)).toEqual(["c", "b", "a"]);
    expect(fused[0]!.anchor?.rank).toBe(1);
    expect(fused[1]!.lexical?.rank).toBe(2);
  });

  it("breaks equal scores by ascending id, whatever order the lists come in", () => {
    const lists = { lexical: [signal("zeta", 1), signal("beta", 2)], anchor: [signal("alpha", 1), signal("gamma", 2, true, 0.9)] };
    const fused = fuse(lists, params({ anchorWeight: 1, lexicalWeight: 1 }), 0);
    expect(fused.map((h) => h.id)).toEqual(["alpha", "zeta", "beta", "gamma"]);
    const reversed = fuse({ anchor: [...lists.anchor].reverse(), lexical: [...lists.lexical].reverse() }, params({ anchorWeight: 1 }), 0);
    expect(reversed).toEqual(fused);
  });

  it("always returns hits sorted by score, then id, with each score the sum of its lists' terms", () => {
    const list = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 6 });
    fc.assert(
      fc.property(list, list, fc.double({ min: 0, max: 2, noNaN: true }), (lex, vec, w) => {
        const p = params({ k: 10 });
        const fused = fuse({ lexical: lex.map((id, i) => signal(id, i + 1)), vector: vec.map((id, i) => signal(id, i + 1)) }, p, w);
        for (let i = 1; i < fused.length; i++) {
          const [a, b] = [fused[i - 1]!, fused[i]!];
          expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true);
        }
        for (const hit of fused) {
          const expected = (hit.lexical ? 1 / (10 + hit.lexical.rank) : 0) + (w > 0 && hit.vector ? w / (10 + hit.vector.rank) : 0);
          expect(hit.score).toBeCloseTo(expected, 12);
        }
      }),
    );
  });

  it("a list with weight 0 adds no candidates, score or relevance, but is attached for explain", () => {
    const fused = fuse({ lexical: [signal("a", 1, false)], vector: [signal("a", 3, true, 0.95), signal("b", 1, true, 0.97)] }, params(), 0);
    expect(fused.map((h) => h.id)).toEqual(["a"]);
    expect(fused[0]!.score).toBeCloseTo(1 / (DEFAULT_FUSION.k + 1), 12);
    expect(fused[0]!.vector).toMatchObject({ rank: 3, score: 0.95 });
    expect(fused[0]!.relevant).toBe(false);
  });

  it("takes at most `depth` candidates from each list", () => {
    const lexical = Array.from({ length: 8 }, (_, i) => signal(`e${i}`, i + 1));
    expect(fuse({ lexical }, params({ depth: 3 })).map((h) => h.id)).toEqual(["e0", "e1", "e2"]);
  });
});

describe("relevance floor", () => {
  // A short query (4 words): a share of its words may stand in for evidence.
  const hits = [
    { id: "strong", score: 10, matchedShare: 0.8, evidence: 3, queryWords: 4 },
    { id: "second-topic", score: 6, matchedShare: 0.2, evidence: 1.4, queryWords: 4 },
    { id: "short-common-query", score: 5, matchedShare: 0.6, evidence: 0.4, queryWords: 4 },
    { id: "common-words", score: 4, matchedShare: 0.3, evidence: 0.9, queryWords: 4 },
    { id: "far-behind", score: 2, matchedShare: 0.1, evidence: 1.6, queryWords: 4 },
  ];

  it("a lexical hit needs evidence (or most of the query) and a score near the best hit", () => {
    const signals = lexicalSignals(hits, params({ evidenceFloor: 1.25, lexicalFloor: 0.5, relativeFloor: 0.35 }));
    expect(signals.map((s) => [s.id, s.rank, s.relevant])).toEqual([
      ["strong", 1, true],
      ["second-topic", 2, true], // a small share of a long query, but distinctive terms
      ["short-common-query", 3, true], // little evidence, but most of the query
      ["common-words", 4, false], // neither enough evidence nor most of the query
      ["far-behind", 5, false], // evidence, but 0.2 of the best score
    ]);
    expect(signals[1]).toMatchObject({ matched: 0.2, evidence: 1.4, relative: 0.6 });
  });

  it("says why each hit below the floor was cut", () => {
    const p = params({ evidenceFloor: 1.25, lexicalFloor: 0.5, relativeFloor: 0.35 });
    const fused = fuse({ lexical: lexicalSignals(hits, p) }, p);
    const reasons = (id: string) => floorReasons(fused.find((h) => h.id === id)!, p);
    expect(reasons("strong")).toEqual([]);
    expect(reasons("common-words")).toEqual([expect.stringMatching(/evidence 0\.90 < 1\.25 and 30% of the query's weight < 50%/)]);
    expect(reasons("far-behind")).toEqual([expect.stringMatching(/lexical score 20% of the best < 35%/)]);
  });

  it("on a long query the share of its words does not count on its own: only evidence does", () => {
    const long = hits.map((h) => ({ ...h, queryWords: 40 }));
    const signals = lexicalSignals(long, params({ evidenceFloor: 1.25, lexicalFloor: 0.5, relativeFloor: 0.35 }));
    expect(signals.filter((s) => s.relevant).map((s) => s.id)).toEqual(["strong", "second-topic"]);
  });

  it("floors at 0 let every lexical hit through", () => {
    expect(lexicalSignals(hits, params({ evidenceFloor: 0, lexicalFloor: 0, relativeFloor: 0 })).every((s) => s.relevant)).toBe(true);
  });

  it("a vector hit is relevant on its own only at or above vectorFloor", () => {
    const signals = vectorSignals([{ id: "twin", similarity: 0.93 }, { id: "edge", similarity: 0.9 }, { id: "near", similarity: 0.89 }], params({ vectorFloor: 0.9 }));
    expect(signals.map((s) => [s.id, s.rank, s.relevant])).toEqual([
      ["twin", 1, true],
      ["edge", 2, true],
      ["near", 3, false],
    ]);
  });

  it("withFloor keeps the relevant hits in fused order; any relevant signal with weight makes a hit relevant", () => {
    const fused = fuse(
      { lexical: [signal("weak", 1, false), signal("solid", 2, true)], vector: [signal("paraphrase", 1, true, 0.95)], anchor: [signal("anchored", 1, true)] },
      params(),
      0.15,
    );
    expect(withFloor(fused).map((h) => h.id)).toEqual(["anchored", "solid", "paraphrase"]);
    expect(fused.find((h) => h.id === "weak")?.relevant).toBe(false);
  });
});

describe("the prose gate on the vector weight", () => {
  it("measures the share of the query outside code", () => {
    expect(proseShare("Retries without backoff overload the payment service")).toBe(1);
    expect(proseShare("let x = foo.unwrap();\nif a == b { return; }")).toBe(0);
    const mixed = proseShare("Connection pools leak on error paths\n`pool.release(conn);`");
    expect(mixed).toBeGreaterThan(0.5);
    expect(mixed).toBeLessThan(1);
    expect(proseShare("   ")).toBe(0);
  });

  it("gives prose queries the full vector weight and code snippets none", () => {
    expect(vectorWeightFor("Session cookies lack the SameSite attribute", params({ vectorWeight: 0.15 }))).toBeCloseTo(0.15, 12);
    expect(vectorWeightFor("x.iter().map(|v| v * 2).collect::<Vec<_>>();", params({ vectorWeight: 0.15 }))).toBe(0);
    expect(vectorWeightFor("x.iter().map(|v| v * 2).collect::<Vec<_>>();", params({ vectorWeight: 0.15, vectorGate: "none" }))).toBe(0.15);
    expect(vectorWeightFor("anything at all", params({ vectorWeight: 0 }))).toBe(0);
  });
});

describe("ranks of tied scores", () => {
  it("entries with equal scores share a rank, so they fuse to equal scores and fall back to id order", () => {
    const lexical = lexicalSignals([
      { id: "b-copy", score: 4, matchedShare: 0.5, evidence: 1 },
      { id: "a-copy", score: 4, matchedShare: 0.5, evidence: 1 },
      { id: "c", score: 2, matchedShare: 0.5, evidence: 1 },
    ]);
    expect(lexical.map((s) => s.rank)).toEqual([1, 1, 3]);
    const vector = vectorSignals([{ id: "a-copy", similarity: 0.7 }, { id: "b-copy", similarity: 0.7 }, { id: "c", similarity: 0.6 }]);
    expect(vector.map((s) => s.rank)).toEqual([1, 1, 3]);
    const fused = fuse({ lexical, vector }, params(), 0.15);
    expect(fused.map((h) => h.id)).toEqual(["a-copy", "b-copy", "c"]);
    expect(fused[0]!.score).toBe(fused[1]!.score);
  });
});
