/**
 * Offsets to 1-based line and column. LF, CRLF and a lone CR each end a line; columns count
 * UTF-16 code units (as editors, ESLint and the LSP do); a leading byte-order mark is not a column.
 */
export type Position = { line: number; column: number };

/** Offsets at which each line starts (index 0 is line 1). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      starts.push(i + 1);
    } else if (code === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** Build a reusable offset → position lookup for one text (binary search over line starts). */
export function createLineIndex(text: string, startLine = 1): (offset: number) => Position {
  const starts = lineStarts(text);
  const bom = text.charCodeAt(0) === 0xfeff;
  return (offset) => {
    const at = Math.min(Math.max(0, offset), text.length);
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    const lineStart = starts[low] ?? 0;
    const skip = low === 0 && bom && at > 0 ? 1 : 0;
    return { line: startLine + low, column: at - lineStart - skip + 1 };
  };
}

/** Position of one offset in a text; for many lookups in the same text use `createLineIndex`. */
export function lineColumnAt(text: string, offset: number): Position {
  return createLineIndex(text)(offset);
}
