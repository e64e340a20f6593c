/** Code-aware lexical retrieval: tokenizer, BM25F index with postings, JSON persistence. */
export {
  LexicalIndex,
  SLOT_COUNT,
  type DocTerms,
  type FieldTf,
  type SearchHit,
  type SearchOptions,
  type WeightedQuery,
} from "./lexical-index.js";
export { DEFAULT_FEEDBACK, type FeedbackParams } from "./feedback.js";
export {
  DEFAULT_LEXICAL_PARAMS,
  FIELD_TABLE,
  LEXICAL_FIELDS,
  resolveParams,
  type FieldParams,
  type LexicalDoc,
  type LexicalField,
  type LexicalParams,
  type LexicalParamsInput,
} from "./params.js";
export { LEXICAL_FORMAT, LEXICAL_FORMAT_VERSION, type SerializedLexicalIndex } from "./serialize.js";
export { stem } from "./stem.js";
export {
  DEFAULT_TOKENIZER_OPTIONS,
  TOKENIZER_VERSION,
  isPhrase,
  isShingle,
  tokenize,
  tokenizeRegions,
  type RegionTerms,
  type TokenizerOptions,
} from "./tokenize.js";
export { splitIdentifier } from "./lexer.js";
export { splitRegions, isCodeLine } from "./regions.js";
