/**
 * Find many literals in one pass over many byte buffers (Aho–Corasick as a byte DFA): every verify
 * step's literal is located in the files at once, so a run costs one scan of each file however many
 * entries search it. Each file is scanned on its own, so no match can span two files.
 */

/** For each literal, the sorted distinct indexes of the regions (files) it occurs in. */
export function findLiterals(regions: readonly Uint8Array[], literals: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const needles = [...new Set(literals)].filter((l) => l.length > 0);
  for (const l of needles) out.set(l, []);
  if (!needles.length) return out;
  const encoded = needles.map((l) => Buffer.from(l, "utf8"));

  // Bytes that occur in no literal all act alike: one column of the table for them (class 0), one per other byte.
  // Literals use a few dozen distinct bytes, so the table is ~6× smaller than 256 columns and stays in cache.
  const classOf = new Uint8Array(256);
  let width = 1;
  for (const needle of encoded) for (const byte of needle) if (classOf[byte] === 0) classOf[byte] = width++;

  // Trie over byte classes.
  const next: number[][] = [new Array<number>(width).fill(-1)];
  const outputs: number[][] = [[]];
  encoded.forEach((needle, id) => {
    let state = 0;
    for (const byte of needle) {
      const c = classOf[byte]!;
      let to = next[state]![c]!;
      if (to === -1) {
        to = next.length;
        next.push(new Array<number>(width).fill(-1));
        outputs.push([]);
        next[state]![c] = to;
      }
      state = to;
    }
    outputs[state]!.push(id);
  });

  // Failure links, breadth first, folded into a full transition table. Entries hold the target's row
  // offset (state × width), so the scan does no multiplication.
  const states = next.length;
  const delta = new Int32Array(states * width);
  const fail = new Int32Array(states);
  const queue: number[] = [];
  for (let c = 0; c < width; c++) {
    const to = next[0]![c]!;
    delta[c] = to === -1 ? 0 : to * width;
    if (to !== -1) queue.push(to);
  }
  for (let q = 0; q < queue.length; q++) {
    const state = queue[q]!;
    outputs[state]!.push(...outputs[fail[state]!]!);
    for (let c = 0; c < width; c++) {
      const to = next[state]![c]!;
      if (to === -1) delta[state * width + c] = delta[fail[state]! * width + c]!;
      else {
        fail[to] = delta[fail[state]! * width + c]! / width;
        delta[state * width + c] = to * width;
        queue.push(to);
      }
    }
  }
  /** 1 at the row offset of each state that ends a literal. */
  const endsAt = new Uint8Array(states * width);
  for (let s = 0; s < states; s++) if (outputs[s]!.length) endsAt[s * width] = 1;

  // Scan each region from the root state.
  const lists = needles.map((l) => out.get(l)!);
  const lastRegion = new Int32Array(needles.length).fill(-1);
  for (let region = 0; region < regions.length; region++) {
    const bytes = regions[region]!;
    let row = 0;
    for (let i = 0; i < bytes.length; i++) {
      row = delta[row + classOf[bytes[i]!]!]!;
      if (endsAt[row] === 0) continue;
      for (const id of outputs[row / width]!) {
        if (lastRegion[id] !== region) {
          lastRegion[id] = region;
          lists[id]!.push(region);
        }
      }
    }
  }
  return out;
}
