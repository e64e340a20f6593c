/**
 * Where a lexical segment's bytes come from: bytes in memory (a segment just built or folded), read
 * as views, or a saved segment file kept open, read by position — a query reads the dictionary and
 * the postings of its own terms, not the whole file (14 MB at 10k entries).
 */
import { fstatSync, readSync } from "node:fs";
import { CairnError } from "../../errors.js";
import { invalidSegment } from "./segment-format.js";

export interface SegmentSource {
  /** Total length in bytes. */
  readonly size: number;
  /** `length` bytes at `offset`; the result starts at a 4-byte aligned address (typed-array views of it need that). */
  read(offset: number, length: number): Uint8Array;
  /** Release the file (a memory source has none). Reads after it throw. */
  close(): void;
}

/** Bytes in memory: reads are views, nothing is copied (unless the bytes themselves are not 4-byte aligned). */
export function memorySource(input: Uint8Array): SegmentSource {
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  return {
    size: bytes.length,
    read: (offset, length) => {
      if (offset + length > bytes.length) throw invalidSegment("a section lies beyond its end");
      return bytes.subarray(offset, offset + length);
    },
    close: () => undefined,
  };
}

/**
 * An open file, read by position. Segment files are never rewritten (a save writes a new one), so what is read
 * later is what the header described when it was opened, whoever saved meanwhile. `close` closes the descriptor.
 */
export function fileSource(fd: number, close: (fd: number) => void): SegmentSource {
  const size = fstatSync(fd).size;
  let open = true;
  return {
    size,
    read: (offset, length) => {
      if (!open) throw new CairnError("INVALID", "internal error: a lexical segment was read after its file was closed");
      if (offset + length > size) throw invalidSegment("a section lies beyond its end");
      const out = new Uint8Array(length);
      for (let at = 0; at < length; ) {
        const n = readSync(fd, out, at, length - at, offset + at);
        if (n === 0) throw invalidSegment("it is shorter than when it was opened");
        at += n;
      }
      return out;
    },
    close: () => {
      if (open) close(fd);
      open = false;
    },
  };
}
