/**
 * The Universal Sentence Encoder lite tokenizer (SentencePiece-style unigram Viterbi over the
 * model's 8k vocabulary). It produces the same ids as the tokenizer shipped in
 * `@energetic-ai/embeddings` (and tfjs-models' USE), but in linear rather than quadratic time:
 * that one copies the rest of the input at every character.
 */

/** `[piece, score]` pairs; the index of a pair is the token id. */
export type UseVocabulary = ReadonlyArray<readonly [string, number]>;

/** Word-start marker: a space becomes `▁`, and the input starts with one. */
const WORD_START = "\u2581";
/** Ids below this are control symbols (`<unk>`, `<s>`, …) that never match input. */
const RESERVED = 6;
/** Id of the unknown symbol used for characters the vocabulary does not contain. */
const UNKNOWN = 0;

type TrieNode = { children: Map<string, TrieNode>; id: number; score: number };

export type UseTokenizer = (text: string) => number[];

export function createUseTokenizer(vocabulary: UseVocabulary): UseTokenizer {
  const root: TrieNode = { children: new Map(), id: -1, score: 0 };
  const lengths = vocabulary.map(([piece]) => Array.from(piece).length);
  for (let id = RESERVED; id < vocabulary.length; id++) {
    const [piece, score] = vocabulary[id]!;
    let node = root;
    for (const symbol of piece) {
      let next = node.children.get(symbol);
      if (!next) {
        next = { children: new Map(), id: -1, score: 0 };
        node.children.set(symbol, next);
      }
      node = next;
    }
    node.id = id;
    node.score = score;
  }

  return function encode(text: string): number[] {
    const normalized = text.normalize("NFKC");
    if (normalized.length === 0) return [];
    const symbols = Array.from(WORD_START + normalized.replaceAll(" ", WORD_START));
    const n = symbols.length;
    // For each end position, the pieces ending there as flat (start, score, id) triples, in
    // ascending start order: the order the reference implementation visits them in.
    const endingAt: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let start = 0; start < n; start++) {
      let node = root.children.get(symbols[start]!);
      let matched = false;
      for (let end = start + 1; node; end++) {
        if (node.id >= 0) {
          endingAt[end]!.push(start, node.score, node.id);
          matched = true;
        }
        node = end < n ? node.children.get(symbols[end]!) : undefined;
      }
      if (!matched) endingAt[start + 1]!.push(start, 0, UNKNOWN);
    }
    const best = new Float64Array(n + 1);
    const ids = new Int32Array(n + 1);
    for (let end = 1; end <= n; end++) {
      const candidates = endingAt[end]!;
      for (let j = 0; j < candidates.length; j += 3) {
        const score = candidates[j + 1]! + best[candidates[j]!]!;
        // Same tie-breaking as the reference: 0 means "unset", later candidates win ties.
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          ids[end] = candidates[j + 2]!;
        }
      }
    }
    const reversed: number[] = [];
    for (let at = n; at > 0; at -= lengths[ids[at]!]!) reversed.push(ids[at]!);
    const out: number[] = [];
    for (let i = reversed.length - 1; i >= 0; i--) {
      const id = reversed[i]!;
      // Runs of unknown symbols collapse to one.
      if (id === UNKNOWN && out.length > 0 && out[out.length - 1] === UNKNOWN) continue;
      out.push(id);
    }
    return out;
  };
}
