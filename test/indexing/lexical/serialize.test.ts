import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CairnError } from "../../../src/errors.js";
import {
  LEXICAL_FORMAT_VERSION,
  LexicalIndex,
  TOKENIZER_VERSION,
  type LexicalDoc,
  type SerializedLexicalIndex,
} from "../../../src/indexing/lexical/index.js";

const DOCS: LexicalDoc[] = [
  {
    id: "len-zero",
    fields: {
      title: "Prefer is_empty() over len() == 0",
      finding: "Comparing `v.len() == 0` hides intent; `v.is_empty()` says it.",
      anchors: "src/collections/vec_ext.rs isEmpty",
      tags: "rust clippy style",
      verify: "Search for `.len() == 0` in changed files.",
    },
  },
  {
    id: "lock-order",
    fields: {
      title: "Take locks in a fixed order",
      finding: "Two code paths take `accounts` then `ledger` and the reverse, which can deadlock.",
      anchors: "src/bank/transfer.go:40-58 Transfer()",
      body: "```go\nmu1.Lock()\nmu2.Lock()\n```",
    },
  },
  { id: "retry", fields: { title: "Retries need jitter", finding: "Without jitter, clients retry in lockstep." } },
];
const QUERIES = ["if list.len() == 0 { return; }", "deadlock between transfer paths", "retry storm", "src/bank/transfer.go"];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-lexical-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function build(docs = DOCS, params?: ConstructorParameters<typeof LexicalIndex>[0]): LexicalIndex {
  const index = new LexicalIndex(params);
  for (const d of docs) index.add(d);
  return index;
}

async function roundTrip(index: LexicalIndex): Promise<LexicalIndex> {
  const file = path.join(dir, "lexical.json");
  await writeFile(file, JSON.stringify(index.toJSON()));
  return LexicalIndex.fromJSON(JSON.parse(await readFile(file, "utf8")));
}

function snapshot(): SerializedLexicalIndex {
  return JSON.parse(JSON.stringify(build().toJSON())) as SerializedLexicalIndex;
}

function loadError(data: unknown): CairnError {
  try {
    LexicalIndex.fromJSON(data);
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error("expected fromJSON to throw");
}

describe("LexicalIndex JSON persistence", () => {
  it("round-trips through a file with identical search results and parameters", async () => {
    const original = build(DOCS, { k1: 1.5, fields: { title: { weight: 3 } } });
    const loaded = await roundTrip(original);
    expect(loaded.size).toBe(original.size);
    expect(loaded.params).toEqual(original.params);
    for (const q of QUERIES) {
      expect(loaded.search(q)).toEqual(original.search(q));
      expect(loaded.search(q).length).toBeGreaterThan(0);
    }
  });

  it("stays incremental after loading: add and remove give the same results as on the original", async () => {
    const original = build();
    const loaded = await roundTrip(original);
    const extra: LexicalDoc = { id: "jitter", fields: { finding: "Add jitter to every retry loop." } };
    for (const index of [original, loaded]) {
      index.add(extra);
      index.remove("lock-order");
    }
    for (const q of QUERIES) expect(loaded.search(q)).toEqual(original.search(q));
  });

  it("writes the same JSON whatever order documents were added in", () => {
    expect(JSON.stringify(build([...DOCS].reverse()).toJSON())).toBe(JSON.stringify(build().toJSON()));
  });

  it("carries its format and tokenizer versions", () => {
    const data = snapshot();
    expect(data.format).toBe("cairn-lexical");
    expect(data.version).toBe(LEXICAL_FORMAT_VERSION);
    expect(data.tokenizerVersion).toBe(TOKENIZER_VERSION);
  });

  it("refuses other formats, versions and tokenizers with an INVALID error that says to rebuild", () => {
    for (const bad of [
      null,
      [],
      { ...snapshot(), format: "other" },
      { ...snapshot(), version: LEXICAL_FORMAT_VERSION + 1 },
      { ...snapshot(), tokenizerVersion: TOKENIZER_VERSION - 1 },
    ]) {
      const error = loadError(bad);
      expect(error.code).toBe("INVALID");
      expect(error.message).toMatch(/rebuild the index/);
    }
  });

  it("refuses corrupt documents, naming the document", () => {
    const outOfRange = snapshot();
    const first = outOfRange.docs[0];
    if (!first) throw new Error("fixture has documents");
    first[2] = [outOfRange.terms.length + 5, 0, 1];
    expect(loadError(outOfRange).message).toMatch(/docs\[0\] \(len-zero\) has a bad posting/);

    const duplicate = snapshot();
    duplicate.docs.push(duplicate.docs[0] as SerializedLexicalIndex["docs"][number]);
    expect(loadError(duplicate).message).toMatch(/appears twice/);

    const badParams = { ...snapshot(), params: { k1: -1 } };
    expect(loadError(badParams).message).toMatch(/k1/);
  });
});
