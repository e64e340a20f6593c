/** Fields, ranking parameters and their defaults for the lexical (BM25F) index. */
import { DEFAULT_FEEDBACK, type FeedbackParams } from "./feedback.js";
import { DEFAULT_TOKENIZER_OPTIONS, type TokenizerOptions } from "./tokenize.js";

export type LexicalField = "title" | "finding" | "anchors" | "tags" | "verify" | "body";
export const LEXICAL_FIELDS: readonly LexicalField[] = ["title", "finding", "anchors", "tags", "verify", "body"];

export type LexicalDoc = { id: string; fields: Partial<Record<LexicalField, string>> };

export type FieldParams = {
  /** Multiplier of this field's normalised term frequency. */
  weight: number;
  /** Length normalisation of this field, 0 (none) to 1 (full). */
  b: number;
};

export type LexicalParams = {
  /** Term-frequency saturation of BM25F. Default 1.2. */
  k1: number;
  /** Per-field weight and length normalisation. Default: see DEFAULT_LEXICAL_PARAMS. */
  fields: Record<LexicalField, FieldParams>;
  /** How repeated query terms count: `binary` (once), `log` (1 + ln tf) or `raw`. Default "log". */
  queryTf: "binary" | "log" | "raw";
  /** Query weight of code shingles (`a b`) relative to single terms. Default 0.8. */
  shingleWeight: number;
  /** Query weight of prose phrases (`a~b`) relative to single terms. Default 0.2. */
  phraseWeight: number;
  /** RM3 pseudo-relevance feedback. Default: off (docs 0). */
  feedback: FeedbackParams;
  /** Tokenizer switches, for ablations; documents and queries always share them. Default: all defaults. */
  tokenizer: TokenizerOptions;
};

export const DEFAULT_LEXICAL_PARAMS: Readonly<LexicalParams> = {
  k1: 1.2,
  fields: {
    title: { weight: 2, b: 0.5 },
    finding: { weight: 1.5, b: 0.75 },
    anchors: { weight: 1.5, b: 0.5 },
    tags: { weight: 1.5, b: 0.3 },
    verify: { weight: 1, b: 0.75 },
    body: { weight: 1, b: 0.75 },
  },
  queryTf: "log",
  shingleWeight: 0.8,
  phraseWeight: 0.2,
  feedback: { ...DEFAULT_FEEDBACK },
  tokenizer: { ...DEFAULT_TOKENIZER_OPTIONS },
};

/** Partial params as accepted by the index constructor; nested objects merge with the defaults. */
export type LexicalParamsInput = {
  /** Default 1.2. */
  k1?: number;
  /** Default: DEFAULT_LEXICAL_PARAMS.fields, merged per field. */
  fields?: Partial<Record<LexicalField, Partial<FieldParams>>>;
  /** Default "log". */
  queryTf?: LexicalParams["queryTf"];
  /** Default 0.8. */
  shingleWeight?: number;
  /** Default 0.2. */
  phraseWeight?: number;
  /** Default: DEFAULT_FEEDBACK (off), merged per key. */
  feedback?: Partial<FeedbackParams>;
  /** Default: DEFAULT_TOKENIZER_OPTIONS, merged per switch. */
  tokenizer?: Partial<TokenizerOptions>;
};

export function resolveParams(input: LexicalParamsInput = {}): LexicalParams {
  const d = DEFAULT_LEXICAL_PARAMS;
  const fields = Object.fromEntries(
    LEXICAL_FIELDS.map((f) => [f, { ...d.fields[f], ...input.fields?.[f] }]),
  ) as Record<LexicalField, FieldParams>;
  return {
    k1: input.k1 ?? d.k1,
    fields,
    queryTf: input.queryTf ?? d.queryTf,
    shingleWeight: input.shingleWeight ?? d.shingleWeight,
    phraseWeight: input.phraseWeight ?? d.phraseWeight,
    feedback: { ...d.feedback, ...input.feedback },
    tokenizer: { ...d.tokenizer, ...input.tokenizer },
  };
}
