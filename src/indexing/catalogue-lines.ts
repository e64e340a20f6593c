/**
 * The records file of a saved catalogue: one encoded record per line, each line's place and crc32 in the
 * catalogue's table. Saves append the lines of new and changed records (a line is never rewritten: what a
 * reader's table points at stays as it was), and write a new, compact file once most of one is lines no
 * table uses. It is kept open (a process saving meanwhile cannot pull it away) and read by position: a line
 * at a time for the few records a search or the inject gate shows, or whole, once, for a command that reads
 * every record. Every line read is checked against its crc.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { crc32 } from "node:zlib";
import { CairnError } from "../errors.js";

/** A saved record whose line no longer matches its checksum: the index rebuilds the catalogue from the entry files. */
export class DamagedRecords extends CairnError {
  /** What is damaged, for the warning of the rebuild. */
  readonly reason: string;
  constructor(file: string, line: number) {
    const reason = `record ${line} of ${file} does not match its checksum`;
    super("IO", `the index in .cairn/ is damaged (${reason}); run \`cairn index --rebuild\``);
    this.reason = reason;
  }
}

type Lines = { offsets: Float64Array; lengths: Uint32Array; crcs: Uint32Array; compact: [size: number, crc: number] };

export class RecordLines {
  readonly file: string;
  #fd: number | null;
  /** Every line's bytes, once read whole (`load`). */
  #text: Buffer | null = null;
  /** Line i spans [offsets[i], offsets[i] + lengths[i]) with its "\n". */
  readonly #offsets: Float64Array;
  readonly #lengths: Uint32Array;
  readonly #crcs: Uint32Array;
  /** The file's size when opened. */
  readonly size: number;
  /** True once every line was read and checked. */
  #checked = false;

  /** The file's first bytes as a full write wrote them, and their crc32. */
  readonly #compact: [size: number, crc: number];

  private constructor(file: string, fd: number, size: number, lines: Lines) {
    this.file = file;
    this.#fd = fd;
    this.size = size;
    this.#offsets = lines.offsets;
    this.#lengths = lines.lengths;
    this.#crcs = lines.crcs;
    this.#compact = lines.compact;
  }

  /** Open the records file; a problem (missing, or shorter than the table says: cut short) is returned, not thrown. */
  static open(file: string, table: Lines & { recordsSize: number }): RecordLines | { problem: string } {
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (error) {
      return { problem: `its records file is unreadable (${(error as Error).message})` };
    }
    const size = fstatSync(fd).size;
    if (size < table.recordsSize) {
      closeSync(fd);
      return { problem: `its records file is ${size} bytes, not at least ${table.recordsSize} (cut short or replaced)` };
    }
    return new RecordLines(file, fd, size, table);
  }

  get count(): number {
    return this.#crcs.length;
  }

  /** The crc32 of line i (with its "\n"), as the table holds it. */
  crcOf(i: number): number {
    return this.#crcs[i]!;
  }

  /** Bytes [from, to) of the file (the writer copies runs of lines). */
  range(from: number, to: number): Buffer {
    return this.#text ? this.#text.subarray(from, to) : this.#read(from, to - from);
  }

  /** Where line i lies in the file ("\n" included). */
  span(i: number): { from: number; to: number } {
    return { from: this.#offsets[i]!, to: this.#offsets[i]! + this.#lengths[i]! };
  }

  /** Line i without its "\n", or undefined when its bytes do not match its crc (the file was damaged). */
  line(i: number): Buffer | undefined {
    const { from, to } = this.span(i);
    if (this.#text) return this.#text.subarray(from, to - 1);
    const bytes = this.#read(from, to - from);
    return crc32(bytes) === this.#crcs[i] ? bytes.subarray(0, bytes.length - 1) : undefined;
  }

  /**
   * Read every line (one read) and check each: the bytes of the last full write with one crc, lines appended since one
   * by one. Throws DamagedRecords when one does not match.
   */
  load(): void {
    if (this.#checked) return;
    const text = this.#text ?? this.#read(0, this.size);
    const [compact, crc] = this.#compact;
    const whole = crc32(text.subarray(0, compact)) === crc;
    for (let i = 0; i < this.#crcs.length; i++) {
      const { from, to } = this.span(i);
      if (to <= compact && whole) continue;
      if (crc32(text.subarray(from, to)) !== this.#crcs[i]) throw new DamagedRecords(this.file, i + 1);
    }
    this.#text = text;
    this.#checked = true;
  }

  /** Forget the lines read whole (every record was decoded); single lines are still read by position. */
  unload(): void {
    this.#text = null;
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
    this.#text = null;
  }

  #read(at: number, length: number): Buffer {
    if (this.#fd === null) throw new CairnError("INVALID", "internal error: a catalogue's records were read after its file was closed");
    const out = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const n = readSync(this.#fd, out, done, length - done, at + done);
      if (n === 0) throw new CairnError("IO", `the index in .cairn/ is damaged (${this.file} is shorter than when it was opened); run \`cairn index --rebuild\``);
      done += n;
    }
    return out;
  }
}
