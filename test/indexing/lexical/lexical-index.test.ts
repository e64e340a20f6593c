import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CairnError } from "../../../src/errors.js";
import { LEXICAL_FIELDS, LexicalIndex, type LexicalDoc } from "../../../src/indexing/lexical/index.js";

const doc = (id: string, fields: LexicalDoc["fields"]): LexicalDoc => ({ id, fields });

function indexOf(docs: LexicalDoc[], params?: ConstructorParameters<typeof LexicalIndex>[0]): LexicalIndex {
  const index = new LexicalIndex(params);
  for (const d of docs) index.add(d);
  return index;
}

const FILLER = "the handler reads the request and writes a response to the client";

describe("LexicalIndex ranking", () => {
  it("ranks the document holding an exact rare identifier first", () => {
    const index = indexOf([
      doc("a", { title: "Request handling", finding: FILLER }),
      doc("b", { title: "Token refresh", finding: `${FILLER}; \`refreshTokenRotation\` must be atomic` }),
      doc("c", { title: "Response writing", finding: `${FILLER} twice` }),
    ]);
    const [first] = index.search("where is refreshTokenRotation handled");
    expect(first?.id).toBe("b");
    expect(first?.matched).toContain("refresh_token_rotation");
  });

  it("weighs fields: a title match beats a body match by default, and the weights can turn that around", () => {
    const docs = [doc("in-body", { title: "cache notes", body: "eviction policy" }), doc("in-title", { title: "eviction policy", body: "cache notes" })];
    expect(indexOf(docs).search("eviction")[0]?.id).toBe("in-title");
    const bodyHeavy = indexOf(docs, { fields: { title: { weight: 0.1 }, body: { weight: 5 } } });
    expect(bodyHeavy.search("eviction")[0]?.id).toBe("in-body");
  });

  it("uses OR semantics: any matching term retrieves a document, more matches rank higher", () => {
    const index = indexOf([
      doc("alpha", { finding: "mutex poisoning" }),
      doc("beta", { finding: "deadlock ordering" }),
      doc("both", { finding: "mutex deadlock ordering" }),
      doc("none", { finding: "unrelated words entirely" }),
    ]);
    const ids = index.search("mutex deadlock").map((h) => h.id);
    expect(ids[0]).toBe("both");
    expect(ids).toEqual(expect.arrayContaining(["alpha", "beta"]));
    expect(ids).not.toContain("none");
  });

  it("breaks score ties by ascending id and numbers ranks from 1", () => {
    const same = { title: "retry with backoff", finding: "retries need jitter" };
    const hits = indexOf([doc("c", same), doc("a", same), doc("b", same)]).search("jitter");
    expect(hits.map((h) => [h.id, h.rank])).toEqual([["a", 1], ["b", 2], ["c", 3]]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
  });

  it("applies limit and filter, and returns nothing for an empty index or a query without known terms", () => {
    const index = indexOf(["a", "b", "c", "d"].map((id) => doc(id, { finding: `timeout handling ${id}` })));
    expect(index.search("timeout", { limit: 2 })).toHaveLength(2);
    expect(index.search("timeout", { filter: (id) => id !== "a" }).map((h) => h.id)).not.toContain("a");
    expect(index.search("zebra")).toEqual([]);
    expect(new LexicalIndex().search("timeout")).toEqual([]);
  });

  it("matches code snippets against code in entries", () => {
    const index = indexOf([
      doc("len-zero", { title: "len() == 0 instead of is_empty()", finding: "Use `v.is_empty()` rather than `v.len() == 0`." }),
      doc("unwrap", { title: "unwrap on Option", finding: "Avoid `opt.unwrap()` in library code." }),
    ]);
    expect(index.search("if items.len() == 0 {\n    return;\n}")[0]?.id).toBe("len-zero");
    expect(index.search("let v = map.get(&k).unwrap();")[0]?.id).toBe("unwrap");
  });

  it("rejects a document without an id", () => {
    expect(() => new LexicalIndex().add(doc("", { title: "x" }))).toThrow(CairnError);
  });
});

describe("LexicalIndex feedback (RM3)", () => {
  const docs = [
    doc("a", { finding: "supersonic flutter of swept wings at high mach numbers" }),
    doc("b", { finding: "flutter of swept wings measured in a supersonic wind tunnel" }),
    doc("c", { finding: "panel vibration of swept wings and aeroelastic divergence at mach two" }),
    doc("d", { finding: "boundary layer transition on flat plates" }),
  ];

  it("expands prose queries with terms of the top documents", () => {
    const ids = (params: ConstructorParameters<typeof LexicalIndex>[0]) => indexOf(docs, params).search("supersonic flutter").map((h) => h.id);
    expect(ids({ feedback: { docs: 0 } })).not.toContain("c");
    expect(ids({ feedback: { docs: 2, terms: 5 } })).toContain("c");
  });

  it("leaves queries that contain code unexpanded by default", () => {
    const index = indexOf(docs, { feedback: { docs: 2, terms: 5 } });
    expect(index.search("supersonic_flutter(x);").map((h) => h.id)).not.toContain("c");
  });
});

describe("LexicalIndex incremental updates", () => {
  it("keeps size, has and document frequencies in step with add, replace and remove", () => {
    const index = indexOf([doc("a", { finding: "lock order" }), doc("b", { finding: "lock timeout" })]);
    expect(index.size).toBe(2);
    expect(index.documentFrequency("lock")).toBe(2);
    index.add(doc("b", { finding: "retry budget" }));
    expect(index.size).toBe(2);
    expect(index.documentFrequency("lock")).toBe(1);
    index.remove("a");
    index.remove("missing");
    expect(index.has("a")).toBe(false);
    expect(index.documentFrequency("lock")).toBe(0);
    expect(index.search("lock")).toEqual([]);
  });

  it("gives exactly the results of an index built from scratch, whatever the order of operations", () => {
    const vocabulary = ["mutex", "lock", "`unwrap()`", "retry", "timeout", "cache", "`parse_config`", "panic", "flutter", "wing"];
    const text = fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 8 }).map((w) => w.join(" "));
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), id: fc.constantFrom("a", "b", "c", "d", "e"), title: text, finding: text }),
      fc.record({ kind: fc.constant("remove" as const), id: fc.constantFrom("a", "b", "c", "d", "e") }),
    );
    const queries = ["mutex lock", "unwrap() panic", "retry timeout cache", "parse_config", "flutter of the wing"];
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
        const incremental = new LexicalIndex();
        const final = new Map<string, LexicalDoc>();
        for (const o of ops) {
          if (o.kind === "add") {
            const d = doc(o.id, { title: o.title, finding: o.finding });
            incremental.add(d);
            final.delete(o.id);
            final.set(o.id, d);
          } else {
            incremental.remove(o.id);
            final.delete(o.id);
          }
        }
        const scratch = indexOf([...final.values()].reverse());
        expect(incremental.size).toBe(scratch.size);
        for (const q of queries) expect(incremental.search(q, { limit: 5 })).toEqual(scratch.search(q, { limit: 5 }));
      }),
      { numRuns: 60 },
    );
  });
});

describe("the field table", () => {
  it("indexes every field it lists, the anchored-code field included, with its own weight", () => {
    expect(LEXICAL_FIELDS).toContain("anchoredCode");
    const index = new LexicalIndex();
    index.add({ id: "fixable", fields: { title: "Fixable rules", anchoredCode: "if (problem.fix && !(rule.meta && rule.meta.fixable)) {" } });
    index.add({ id: "other", fields: { title: "Rule schemas", body: "meta.schema must be an array" } });
    expect(index.search("problem.fix && rule.meta.fixable")[0]?.id).toBe("fixable");
    const heavier = new LexicalIndex({ fields: { anchoredCode: { weight: 1 } } });
    heavier.add({ id: "fixable", fields: { anchoredCode: "rule.meta.fixable" } });
    const light = new LexicalIndex();
    light.add({ id: "fixable", fields: { anchoredCode: "rule.meta.fixable" } });
    expect(heavier.search("rule.meta.fixable")[0]!.score).toBeGreaterThan(light.search("rule.meta.fixable")[0]!.score);
  });
});
