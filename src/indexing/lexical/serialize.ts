/**
 * Versioned JSON form of the lexical index: parameters plus each document's per-field term
 * frequencies, so loading rebuilds postings without re-tokenizing any text.
 */
import { CairnError } from "../../errors.js";
import type { DocTerms, FieldTf } from "./lexical-index.js";
import { LEXICAL_FIELDS, resolveParams, type LexicalParams, type LexicalParamsInput } from "./params.js";
import { TOKENIZER_VERSION } from "./tokenize.js";

export const LEXICAL_FORMAT = "cairn-lexical";
/** Bumped when the JSON layout changes. */
export const LEXICAL_FORMAT_VERSION = 1;

/** One document: its id and, per field that has terms, `[term, count]` pairs. */
export type SerializedDoc = [id: string, fields: Partial<Record<string, Array<[string, number]>>>];

export type SerializedLexicalIndex = {
  format: typeof LEXICAL_FORMAT;
  version: number;
  tokenizerVersion: number;
  params: LexicalParams;
  docs: SerializedDoc[];
};

export function serializeIndex(params: LexicalParams, docs: ReadonlyMap<string, DocTerms>): SerializedLexicalIndex {
  const out: SerializedDoc[] = [];
  for (const [id, { terms }] of docs) {
    const fields: SerializedDoc[1] = {};
    LEXICAL_FIELDS.forEach((field, f) => {
      const pairs: Array<[string, number]> = [];
      for (const [term, tf] of terms) if ((tf[f] ?? 0) > 0) pairs.push([term, tf[f] ?? 0]);
      if (pairs.length > 0) fields[field] = pairs;
    });
    out.push([id, fields]);
  }
  return {
    format: LEXICAL_FORMAT,
    version: LEXICAL_FORMAT_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    params: structuredClone(params),
    docs: out,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function invalid(what: string, cause?: unknown): CairnError {
  return new CairnError(
    "INVALID",
    `Cannot load the lexical index: ${what}. Expected the output of LexicalIndex.toJSON() ` +
      `({"format":"${LEXICAL_FORMAT}","version":${LEXICAL_FORMAT_VERSION},"tokenizerVersion":${TOKENIZER_VERSION},...}); rebuild the index.`,
    { cause },
  );
}

function parseDoc(raw: unknown, i: number): [string, DocTerms] {
  if (!Array.isArray(raw) || typeof raw[0] !== "string" || !isRecord(raw[1])) {
    throw invalid(`docs[${i}] is not an [id, fields] pair`);
  }
  const [id, fields] = raw as [string, Record<string, unknown>];
  const terms = new Map<string, FieldTf>();
  const lengths = new Array<number>(LEXICAL_FIELDS.length).fill(0);
  LEXICAL_FIELDS.forEach((field, f) => {
    const pairs = fields[field];
    if (pairs === undefined) return;
    if (!Array.isArray(pairs)) throw invalid(`docs[${i}] (${id}) field "${field}" is not a list of [term, count]`);
    for (const pair of pairs as unknown[]) {
      if (!Array.isArray(pair) || typeof pair[0] !== "string" || !Number.isInteger(pair[1]) || (pair[1] as number) < 1) {
        throw invalid(`docs[${i}] (${id}) field "${field}" has a bad entry ${JSON.stringify(pair)}`);
      }
      const [term, count] = pair as [string, number];
      let tf = terms.get(term);
      if (!tf) {
        tf = new Array<number>(LEXICAL_FIELDS.length).fill(0);
        terms.set(term, tf);
      }
      tf[f] = count;
      lengths[f] = (lengths[f] ?? 0) + count;
    }
  });
  return [id, { terms, lengths }];
}

/** Validate and decode a snapshot; throws CairnError INVALID with what is wrong. */
export function parseSerialized(data: unknown): { params: LexicalParams; docs: Array<[string, DocTerms]> } {
  if (!isRecord(data) || data["format"] !== LEXICAL_FORMAT) throw invalid(`"format" is not "${LEXICAL_FORMAT}"`);
  if (data["version"] !== LEXICAL_FORMAT_VERSION) {
    throw invalid(`format version ${JSON.stringify(data["version"])} is not supported`);
  }
  if (data["tokenizerVersion"] !== TOKENIZER_VERSION) {
    throw invalid(`it was built by tokenizer version ${JSON.stringify(data["tokenizerVersion"])}`);
  }
  if (!isRecord(data["params"])) throw invalid(`"params" is missing`);
  if (!Array.isArray(data["docs"])) throw invalid(`"docs" is not a list`);
  let params: LexicalParams;
  try {
    params = resolveParams(data["params"] as LexicalParamsInput);
  } catch (cause) {
    throw invalid(`"params" cannot be read`, cause);
  }
  return { params, docs: (data["docs"] as unknown[]).map(parseDoc) };
}
