import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CairnError } from "../../../src/errors.js";
import { LayeredLexical } from "../../../src/indexing/lexical/layered.js";
import { LexicalIndex, resolveParams, type LexicalDoc } from "../../../src/indexing/lexical/index.js";
import { buildSegment, Segment } from "../../../src/indexing/lexical/segment.js";

const params = resolveParams();
const doc = (id: string, fields: LexicalDoc["fields"]): LexicalDoc => ({ id, fields });

/** Scores of a layered index and an in-memory index over the same final documents, per query. */
function expectSameRanking(layered: LayeredLexical, docs: Iterable<LexicalDoc>, queries: string[]): void {
  const scratch = new LexicalIndex();
  for (const d of docs) scratch.add(d);
  expect(layered.size).toBe(scratch.size);
  for (const q of queries) {
    expect(layered.search(q, { limit: 10 })).toEqual(scratch.search(q, { limit: 10 }));
    const terms = scratch.queryTerms(q);
    for (const t of terms.keys()) expect(layered.documentFrequency(t)).toBe(scratch.documentFrequency(t));
  }
}

describe("the binary segment", () => {
  it("round-trips documents: ids, hashes, lengths, term lookup and postings", () => {
    const scratch = new LexicalIndex();
    const docs = [doc("a", { title: "Mutex lock held across await", finding: "`lock.unwrap()` panics" }), doc("b", { finding: "retry with jitter — ünïcode tërm" })];
    for (const d of docs) scratch.add(d);
    const bytes = buildSegment(params, docs.map((d, i) => ({ id: d.id, hash: `h${i}`, ...scratch.docTerms(d.id)! })));
    const segment = Segment.open(bytes);
    expect(segment.size).toBe(2);
    expect([segment.id(0), segment.id(1)]).toEqual(["a", "b"]);
    expect(segment.hash(1)).toBe("h1");
    for (const [i, d] of docs.entries()) {
      const want = scratch.docTerms(d.id)!;
      const got = segment.docTerms(i);
      expect(got.lengths).toEqual(want.lengths);
      expect(new Map([...got.terms].sort())).toEqual(new Map([...want.terms].sort()));
    }
    expect(segment.lookup("not-a-term")).toBe(-1);
    expect(segment.lookup("tërm")).toBeGreaterThanOrEqual(0);
  });

  it("refuses bytes that are not a whole segment, with a CairnError saying it will be rebuilt", () => {
    const bytes = buildSegment(params, [{ id: "a", hash: "h", ...new LexicalIndex().analyze(doc("a", { title: "x y" })) }]);
    expect(() => Segment.open(bytes.subarray(0, bytes.length - 4))).toThrow(/rebuilt/);
    expect(() => Segment.open(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toThrow(CairnError);
    const unaligned = new Uint8Array(bytes.length + 1);
    unaligned.set(bytes, 1);
    expect(Segment.open(unaligned.subarray(1)).size).toBe(1);
  });
});

describe("the layered lexical index", () => {
  it("ranks exactly like one in-memory index over base, overlay, tombstones, a saved delta and a compaction", () => {
    const vocabulary = ["mutex", "lock", "`unwrap()`", "retry", "timeout", "cache", "`parse_config`", "panic", "flutter", "wing", "`a.b()`"];
    const text = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 8 }).map((w) => w.join(" "));
    const ids = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), id: ids, title: text, finding: text }),
      fc.record({ kind: fc.constant("remove" as const), id: ids }),
    );
    const queries = ["mutex lock", "unwrap() panic", "retry timeout cache", "parse_config", "flutter of the wing", "a.b()"];
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), fc.array(op, { maxLength: 12 }), (before, after) => {
        const final = new Map<string, LexicalDoc>();
        const apply = (index: LayeredLexical, ops: typeof before) => {
          for (const o of ops) {
            if (o.kind === "add") {
              const d = doc(o.id, { title: o.title, finding: o.finding });
              index.add(d, `${o.title}|${o.finding}`);
              final.set(o.id, d);
            } else {
              index.remove(o.id);
              final.delete(o.id);
            }
          }
        };
        const first = new LayeredLexical(params);
        apply(first, before);
        const base = Segment.open(first.compact());
        const layered = new LayeredLexical(params, base);
        apply(layered, after);
        expectSameRanking(layered, final.values(), queries);
        for (const [id, d] of final) expect(layered.hashOf(id)).toBe(`${d.fields.title}|${d.fields.finding}`);
        const restored = LayeredLexical.restore(params, base, JSON.parse(JSON.stringify(layered.delta())));
        expectSameRanking(restored, final.values(), queries);
        expect(restored.changed).toBe(false);
        const compacted = new LayeredLexical(params, Segment.open(layered.compact()));
        expectSameRanking(compacted, final.values(), queries);
        expect(compacted.pending).toEqual({ overlay: 0, dead: 0, base: final.size });
      }),
      { numRuns: 80 },
    );
  });
});
