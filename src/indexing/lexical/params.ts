/** Fields, ranking parameters and their defaults for the lexical (BM25F) index. */
import { DEFAULT_FEEDBACK, type FeedbackParams } from "./feedback.js";
import { DEFAULT_TOKENIZER_OPTIONS, type TokenizerOptions } from "./tokenize.js";

export type FieldParams = {
  /** Multiplier of this field's normalised term frequency. */
  weight: number;
  /** Length normalisation of this field, 0 (none) to 1 (full). */
  b: number;
};

/**
 * The field table: every lexical field of an entry with its default weight and length
 * normalisation. A new field is one line here (persisted indexes built with another table are
 * refused and rebuilt, see serialize.ts). Weights were tuned on the odd query ids of the retrieval
 * benchmarks (bench/retrieval.ts, bench/retrieval-anchored.ts).
 */
export const FIELD_TABLE = {
  title: { weight: 2, b: 0.5 },
  finding: { weight: 1.5, b: 0.75 },
  anchors: { weight: 1.5, b: 0.5 },
  tags: { weight: 1.5, b: 0.3 },
  verify: { weight: 1, b: 0.75 },
  body: { weight: 1, b: 0.75 },
  /** The source lines the entry's anchors point at (phase 2 of issue 10 fills it in the product; the benchmarks fill it today). Weight 0.05: review-anchored, inject --diff queries, tuning half (bench/retrieval-anchored.ts): Hit@5 0.98 at 0.05 (0.99 at 0.02: a tie-breaker either way), 0.97 at 0.1, 0.90 at 1, against 0.96 without the field. */
  anchoredCode: { weight: 0.05, b: 0.75 },
} as const satisfies Record<string, FieldParams>;

export type LexicalField = keyof typeof FIELD_TABLE;
export const LEXICAL_FIELDS: readonly LexicalField[] = Object.keys(FIELD_TABLE) as LexicalField[];

export type LexicalDoc = { id: string; fields: Partial<Record<LexicalField, string>> };

export type LexicalParams = {
  /** Term-frequency saturation of BM25F. Default 2. */
  k1: number;
  /** Per-field weight and length normalisation of prose. Default: FIELD_TABLE. */
  fields: Record<LexicalField, FieldParams>;
  /**
   * Code inside any field (fences, backticks, code-like lines) is a sub-field of its own:
   * `weight` multiplies the field's weight, `b` replaces its b. Default { weight: 0.6, b: 1 }.
   */
  code: FieldParams;
  /** How repeated query terms count: `binary` (once), `log` (1 + ln tf) or `raw`. Default "log". */
  queryTf: "binary" | "log" | "raw";
  /** Query weight of code shingles (`a b`) relative to single terms. Default 0.8. */
  shingleWeight: number;
  /** Query weight of prose phrases (`a~b`) relative to single terms. Default 0.2. */
  phraseWeight: number;
  /** RM3 pseudo-relevance feedback for prose queries. Default: DEFAULT_FEEDBACK (off). */
  feedback: FeedbackParams;
  /** Tokenizer switches (for ablations); documents and queries always share them. Default: DEFAULT_TOKENIZER_OPTIONS. */
  tokenizer: TokenizerOptions;
};

export const DEFAULT_LEXICAL_PARAMS: Readonly<LexicalParams> = {
  k1: 2,
  fields: FIELD_TABLE,
  code: { weight: 0.6, b: 1 },
  queryTf: "log",
  shingleWeight: 0.8,
  phraseWeight: 0.2,
  feedback: { ...DEFAULT_FEEDBACK },
  tokenizer: { ...DEFAULT_TOKENIZER_OPTIONS },
};

/** Partial params as accepted by the index constructor; nested objects merge with the defaults. */
export type LexicalParamsInput = {
  /** Default 2. */
  k1?: number;
  /** Default: FIELD_TABLE, merged per field. */
  fields?: Partial<Record<LexicalField, Partial<FieldParams>>>;
  /** Default { weight: 0.6, b: 1 }, merged per key. */
  code?: Partial<FieldParams>;
  /** Default "log". */
  queryTf?: LexicalParams["queryTf"];
  /** Default 0.8. */
  shingleWeight?: number;
  /** Default 0.2. */
  phraseWeight?: number;
  /** Default: DEFAULT_FEEDBACK (off), merged per key; `{ docs: 10 }` turns feedback on. */
  feedback?: Partial<FeedbackParams>;
  /** Default: DEFAULT_TOKENIZER_OPTIONS, merged per switch. */
  tokenizer?: Partial<TokenizerOptions>;
};

const finite = (name: string, value: number, min: number, max: number): number => {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`Lexical parameter ${name} must be a number in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
};

/** Merge partial params over the defaults and check their ranges (throws RangeError). */
export function resolveParams(input: LexicalParamsInput = {}): LexicalParams {
  const d = DEFAULT_LEXICAL_PARAMS;
  const field = (name: string, p: FieldParams): FieldParams => ({
    weight: finite(`${name}.weight`, p.weight, 0, 1000),
    b: finite(`${name}.b`, p.b, 0, 1),
  });
  const fields = Object.fromEntries(
    LEXICAL_FIELDS.map((f) => [f, field(`fields.${f}`, { ...d.fields[f], ...input.fields?.[f] })]),
  ) as Record<LexicalField, FieldParams>;
  const feedback = { ...d.feedback, ...input.feedback };
  finite("feedback.docs", feedback.docs, 0, 1000);
  finite("feedback.terms", feedback.terms, 0, 1000);
  finite("feedback.originalWeight", feedback.originalWeight, 0, 1);
  const queryTf = input.queryTf ?? d.queryTf;
  if (!["binary", "log", "raw"].includes(queryTf)) {
    throw new RangeError(`Lexical parameter queryTf must be "binary", "log" or "raw", got ${JSON.stringify(queryTf)}`);
  }
  return {
    k1: finite("k1", input.k1 ?? d.k1, 0, 100),
    fields,
    code: field("code", { ...d.code, ...input.code }),
    queryTf,
    shingleWeight: finite("shingleWeight", input.shingleWeight ?? d.shingleWeight, 0, 100),
    phraseWeight: finite("phraseWeight", input.phraseWeight ?? d.phraseWeight, 0, 100),
    feedback,
    tokenizer: { ...d.tokenizer, ...input.tokenizer },
  };
}
