/**
 * Versioned JSON form of the lexical index: parameters, a term dictionary and each document's
 * slot lengths and `[term index, slot, count]` triples, so loading rebuilds postings without
 * re-tokenizing any text. Snapshots from another format or tokenizer version are refused.
 */
import { CairnError } from "../../errors.js";
import type { DocTerms, FieldTf } from "./lexical-index.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

export const LEXICAL_FORMAT = "cairn-lexical";
/** Bumped when the JSON layout or the field table changes. */
export const LEXICAL_FORMAT_VERSION = 3;

const SLOTS = LEXICAL_FIELDS.length * 2;

/** One document: id, per-slot lengths, then flat `[term index, slot, count, ...]` triples. */
export type SerializedDoc = [id: string, lengths: number[], postings: number[]];

export type SerializedLexicalIndex = {
  format: typeof LEXICAL_FORMAT;
  version: number;
  tokenizerVersion: number;
  params: LexicalParams;
  /** Term dictionary; documents refer to terms by position. */
  terms: string[];
  docs: SerializedDoc[];
};

export function serializeIndex(params: LexicalParams, docs: Iterable<[string, DocTerms]>): SerializedLexicalIndex {
  const dictionary = new Map<string, number>();
  const out: SerializedDoc[] = [];
  for (const [id, { terms, lengths }] of docs) {
    const flat: number[] = [];
    for (const [term, tf] of terms) {
      let index = dictionary.get(term);
      if (index === undefined) {
        index = dictionary.size;
        dictionary.set(term, index);
      }
      for (let k = 0; k < tf.length; k += 2) flat.push(index, tf[k] ?? 0, tf[k + 1] ?? 0);
    }
    out.push([id, [...lengths], flat]);
  }
  return {
    format: LEXICAL_FORMAT,
    version: LEXICAL_FORMAT_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    params: structuredClone(params),
    terms: [...dictionary.keys()],
    docs: out,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown, min: number): v is number => Number.isInteger(v) && (v as number) >= min;

function invalid(what: string, cause?: unknown): CairnError {
  return new CairnError(
    "INVALID",
    `Cannot load the lexical index: ${what}. Expected the output of LexicalIndex.toJSON() ` +
      `({"format":"${LEXICAL_FORMAT}","version":${LEXICAL_FORMAT_VERSION},"tokenizerVersion":${TOKENIZER_VERSION},...}); rebuild the index.`,
    cause === undefined ? undefined : { cause },
  );
}

function parseDoc(raw: unknown, i: number, dictionary: readonly string[]): [string, DocTerms] {
  if (!Array.isArray(raw) || raw.length !== 3 || typeof raw[0] !== "string" || !Array.isArray(raw[1]) || !Array.isArray(raw[2])) {
    throw invalid(`docs[${i}] is not an [id, lengths, postings] triple`);
  }
  const [id, lengths, flat] = raw as [string, unknown[], unknown[]];
  if (lengths.length !== SLOTS || !lengths.every((l) => isCount(l, 0))) {
    throw invalid(`docs[${i}] (${id}) lengths are not ${SLOTS} non-negative integers`);
  }
  if (flat.length % 3 !== 0) throw invalid(`docs[${i}] (${id}) postings are not [term, slot, count] triples`);
  const terms = new Map<string, FieldTf>();
  for (let k = 0; k < flat.length; k += 3) {
    const [t, slot, count] = [flat[k], flat[k + 1], flat[k + 2]];
    const term = isCount(t, 0) ? dictionary[t] : undefined;
    if (term === undefined || !isCount(slot, 0) || slot >= SLOTS || !isCount(count, 1)) {
      throw invalid(`docs[${i}] (${id}) has a bad posting ${JSON.stringify([t, slot, count])}`);
    }
    const tf = terms.get(term);
    if (tf) tf.push(slot, count);
    else terms.set(term, [slot, count]);
  }
  return [id, { terms, lengths: lengths as number[] }];
}

/** Validate and decode a snapshot; throws CairnError INVALID saying what is wrong. */
export function parseSerialized(data: unknown): { params: LexicalParams; docs: Array<[string, DocTerms]> } {
  if (!isRecord(data) || data["format"] !== LEXICAL_FORMAT) throw invalid(`"format" is not "${LEXICAL_FORMAT}"`);
  if (data["version"] !== LEXICAL_FORMAT_VERSION) {
    throw invalid(`format version ${JSON.stringify(data["version"])} is not supported`);
  }
  if (data["tokenizerVersion"] !== TOKENIZER_VERSION) {
    throw invalid(`it was built by tokenizer version ${JSON.stringify(data["tokenizerVersion"])}`);
  }
  const dictionary = data["terms"];
  if (!Array.isArray(dictionary) || !dictionary.every((t) => typeof t === "string")) {
    throw invalid(`"terms" is not a list of strings`);
  }
  if (!isRecord(data["params"])) throw invalid(`"params" is missing`);
  if (!Array.isArray(data["docs"])) throw invalid(`"docs" is not a list`);
  let params: LexicalParams;
  try {
    params = resolveParams(data["params"] as LexicalParamsInput);
  } catch (cause) {
    throw invalid(`"params" are out of range (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
  const seen = new Set<string>();
  const docs = (data["docs"] as unknown[]).map((raw, i) => {
    const doc = parseDoc(raw, i, dictionary as string[]);
    if (seen.has(doc[0])) throw invalid(`document id ${JSON.stringify(doc[0])} appears twice`);
    seen.add(doc[0]);
    return doc;
  });
  return { params, docs };
}
