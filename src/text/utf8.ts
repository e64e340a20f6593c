/** Strict UTF-8: the first byte that is not valid UTF-8, where a person finds it (1-based line and column). */

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence (overlongs and surrogates included), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const cont = (i: number, lo = 0x80, hi = 0xbf) => i < bytes.length && bytes[i]! >= lo && bytes[i]! <= hi;
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c < 0x80) i += 1;
    else if (c >= 0xc2 && c <= 0xdf && cont(i + 1)) i += 2;
    else if (c >= 0xe0 && c <= 0xef && cont(i + 1, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && cont(i + 2)) i += 3;
    else if (c >= 0xf0 && c <= 0xf4 && cont(i + 1, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && cont(i + 2) && cont(i + 3)) i += 4;
    else return i;
  }
  return -1;
}

/** 1-based line and column (in bytes) of `index`. */
export function positionOfByte(bytes: Uint8Array, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: index - lineStart + 1 };
}

/** The text of `bytes`, or where the first invalid byte is. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { invalid: { line: number; column: number; byte: number } } {
  const bad = firstInvalidUtf8(bytes);
  if (bad === -1) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8") };
  return { invalid: { ...positionOfByte(bytes, bad), byte: bytes[bad]! } };
}
