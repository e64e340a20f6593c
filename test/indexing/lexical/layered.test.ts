import { closeSync, fstatSync, openSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CairnError } from "../../../src/errors.js";
import { LayeredLexical } from "../../../src/indexing/lexical/layered.js";
import { LexicalIndex, resolveParams, type LexicalDoc } from "../../../src/indexing/lexical/index.js";
import { buildSegment, Segment } from "../../../src/indexing/lexical/segment.js";
import { testdir } from "../../helpers/fixture.js";

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

/** Every term's postings by document id: two segments over the same documents, numbered differently, compare equal. */
function postingsById(segment: Segment): Map<string, Array<[string, number[]]>> {
  const out = new Map<string, Array<[string, number[]]>>();
  for (let t = 0; t < segment.termCount; t++) {
    const { docs, tfs } = segment.postings(t);
    if (!docs.length) continue;
    const list = docs.map((num, i): [string, number[]] => [segment.id(num), tfs[i]!]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    out.set(segment.term(t), list);
  }
  return out;
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

describe("a segment read from its file by position", () => {
  const vocabulary = ["mutex", "lock", "`unwrap()`", "retry", "timeout", "cache", "`parse_config`", "panic", "flutter", "wing", "ünïcode"];
  const queries = ["mutex lock", "unwrap() panic", "retry timeout cache", "parse_config", "flutter of the wing", "ünïcode", "absent"];

  async function segmentFile(bytes: Uint8Array): Promise<number> {
    const dir = await testdir({ "segment.bin": bytes });
    return openSync(path.join(dir, "segment.bin"), "r");
  }

  it("answers exactly like the same bytes in memory: documents, terms, postings and rankings over a layered index", async () => {
    const texts = Array.from({ length: 60 }, (_, k) => Array.from({ length: 1 + (k % 7) }, (_, j) => vocabulary[(k * 3 + j * 5) % vocabulary.length]).join(" "));
    const first = new LayeredLexical(params);
    texts.forEach((text, k) => first.add(doc(`d${k}`, { title: text, finding: texts[(k + 1) % texts.length] }), `h${k}`));
    const bytes = first.compact();
    const inMemory = Segment.open(bytes);
    const fd = await segmentFile(bytes);
    const fromFile = Segment.openFile(fd, closeSync);
    expect([fromFile.size, fromFile.termCount]).toEqual([inMemory.size, inMemory.termCount]);
    for (let num = 0; num < inMemory.size; num++) {
      expect([fromFile.id(num), fromFile.hash(num)]).toEqual([inMemory.id(num), inMemory.hash(num)]);
      expect(fromFile.docTerms(num)).toEqual(inMemory.docTerms(num));
    }
    for (let t = 0; t < inMemory.termCount; t++) {
      expect(fromFile.lookup(inMemory.term(t))).toBe(t);
      expect(fromFile.postings(t)).toEqual(inMemory.postings(t));
    }
    // Layered over either: the same rankings, before and after changes on top, and the same compaction.
    const onFile = new LayeredLexical(params, fromFile);
    const onMemory = new LayeredLexical(params, inMemory);
    for (const index of [onFile, onMemory]) {
      index.remove("d3");
      index.add(doc("d7", { title: "retry retry mutex" }), "changed");
      index.add(doc("new", { finding: "cache panic" }), "new");
    }
    for (const q of queries) expect(onFile.search(q, { limit: 20 })).toEqual(onMemory.search(q, { limit: 20 }));
    expect(onFile.compact()).toEqual(onMemory.compact());
    onFile.close();
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it("refuses a cut or damaged file when it is opened (it is rebuilt), closing it; a closed segment never reads another file", async () => {
    const bytes = buildSegment(params, [{ id: "a", hash: "h", ...new LexicalIndex().analyze(doc("a", { title: "x y" })) }]);
    const cut = await segmentFile(bytes.subarray(0, bytes.length - 4));
    expect(() => Segment.openFile(cut, closeSync)).toThrow(/rebuilt/);
    expect(() => fstatSync(cut)).toThrow(/EBADF/);
    const damaged = bytes.slice();
    damaged[0] = 0;
    const bad = await segmentFile(damaged);
    expect(() => Segment.openFile(bad, closeSync)).toThrow(/signature/);
    const segment = Segment.openFile(await segmentFile(bytes), closeSync);
    segment.close();
    expect(() => segment.id(0)).toThrow(/after its file was closed/);
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
        const bytes = layered.compact();
        const compacted = new LayeredLexical(params, Segment.open(bytes));
        expectSameRanking(compacted, final.values(), queries);
        // The merge copies base pairs and packs the overlay's: the postings of a segment built from the final documents.
        const scratch = new LayeredLexical(params);
        for (const d of final.values()) scratch.add(d, `${d.fields.title}|${d.fields.finding}`);
        expect(postingsById(Segment.open(bytes))).toEqual(postingsById(Segment.open(scratch.compact())));
        expect(compacted.pending).toEqual({ overlay: 0, dead: 0, base: final.size });
      }),
      { numRuns: 80 },
    );
  });
});
