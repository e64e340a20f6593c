/**
 * Find many literals in one pass over a byte buffer (Aho–Corasick as a byte DFA): every wide verify
 * step's literal is located in the joined corpus at once, so a run costs one scan however many
 * entries search the whole repository.
 */

/** Bytes between regions (the corpus joins files with "\n\0\n"). */
const SEPARATOR = 3;

/** For each literal, the sorted distinct indexes of the regions (files) it occurs in. */
export function findLiterals(bytes: Uint8Array, starts: readonly number[], literals: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const needles = [...new Set(literals)].filter((l) => l.length > 0);
  for (const l of needles) out.set(l, []);
  if (!needles.length) return out;

  // Trie over bytes.
  const next: number[][] = [new Array<number>(256).fill(-1)];
  const outputs: number[][] = [[]];
  const encoded = needles.map((l) => Buffer.from(l, "utf8"));
  encoded.forEach((needle, id) => {
    let state = 0;
    for (const byte of needle) {
      let to = next[state]![byte]!;
      if (to === -1) {
        to = next.length;
        next.push(new Array<number>(256).fill(-1));
        outputs.push([]);
        next[state]![byte] = to;
      }
      state = to;
    }
    outputs[state]!.push(id);
  });

  // Failure links, breadth first, folded into a full transition table.
  const states = next.length;
  const delta = new Int32Array(states * 256);
  const fail = new Int32Array(states);
  const queue: number[] = [];
  for (let b = 0; b < 256; b++) {
    const to = next[0]![b]!;
    delta[b] = to === -1 ? 0 : to;
    if (to !== -1) queue.push(to);
  }
  for (let q = 0; q < queue.length; q++) {
    const state = queue[q]!;
    outputs[state]!.push(...outputs[fail[state]!]!);
    for (let b = 0; b < 256; b++) {
      const to = next[state]![b]!;
      if (to === -1) delta[state * 256 + b] = delta[fail[state]! * 256 + b]!;
      else {
        fail[to] = delta[fail[state]! * 256 + b]!;
        delta[state * 256 + b] = to;
        queue.push(to);
      }
    }
  }
  const hasOutput = new Uint8Array(states);
  for (let s = 0; s < states; s++) if (outputs[s]!.length) hasOutput[s] = 1;

  // Scan.
  const lists = needles.map((l) => out.get(l)!);
  const lastRegion = new Int32Array(needles.length).fill(-1);
  let state = 0;
  let region = 0;
  for (let i = 0; i < bytes.length; i++) {
    state = delta[state * 256 + bytes[i]!]!;
    if (!hasOutput[state]) continue;
    while (region + 1 < starts.length && starts[region + 1]! <= i) region++;
    for (const id of outputs[state]!) {
      // A match that started before this region's first byte spans a separator: not inside one file.
      if (i - encoded[id]!.length + 1 < starts[region]! || (region + 1 < starts.length && i >= starts[region + 1]! - SEPARATOR)) continue;
      if (lastRegion[id] !== region) {
        lastRegion[id] = region;
        lists[id]!.push(region);
      }
    }
  }
  return out;
}
