/**
 * The entries of a folded state in a snapshot body (state-codec.ts). Per entry number: its
 * counters and times, in blocks of BLOCK entries (one JSON text each: `status` reads every entry,
 * `show` one block); the runs after its last reset and the events it keeps, each its own text,
 * parsed on first use (stored-fold.ts); and the digest of its fingerprints, in one list (`check`
 * keys every entry's cached anchor results by it without decoding an entry). A block never
 * decoded is written back byte for byte, and so are the texts of its entries.
 */
import { type Body, parseAt, type Section } from "./body.js";
import { type AfterRuns, digestOf, type EntryFold, newEntryFold } from "./entry-fold.js";
import { type Extras, extrasMask, StoredFold } from "./stored-fold.js";

/** Entries per block of counters. */
const BLOCK = 64;
/** Numbers per entry in the `at` list: [offset, length] of its after-reset runs, then of its kept events (length 0: none). */
const AT = 4;

/** Where the entries are in a body. */
export type EntrySections = {
  /** [offset, length] of each block's JSON text: a list of EntryRecords. */
  blocks: Section;
  /** AT numbers per entry, one flat list. */
  at: Section;
  /** Per entry, the digest of its fingerprints, or 0. */
  digests: Section;
};

type EntryRecord = [
  independent: number,
  primed: number,
  withheld: number,
  found: number,
  injectedRuns: number,
  named: 0 | 1,
  lastReset: string | null,
  lastInjected: string | null,
  lastInjectedRun: string | null,
  afterRuns: number,
  heldOnlyRuns: number,
  /** Which events it keeps (stored-fold.ts HAS). */
  mask: number,
];
/** [run, time, run, time, …] of the injections, then of the withholdings. */
type AfterRecord = [injected: Array<number | string>, held: Array<number | string>];

/** The entries of a loaded snapshot: decoded a block at a time, each fold once. */
export class StoredEntries {
  readonly #body: Buffer;
  readonly #sections: EntrySections;
  #blocks: number[] | undefined;
  #at: number[] | undefined;
  #digests: Array<string | 0> | undefined;
  readonly #decoded: Array<EntryFold[] | undefined> = [];

  constructor(body: Buffer, sections: EntrySections) {
    this.#body = body;
    this.#sections = sections;
  }

  /** Entries in the snapshot (numbers 0 … count-1). */
  get count(): number {
    return this.#atList().length / AT;
  }

  /** The fold of entry number `n`; undefined beyond the snapshot. */
  entry(n: number): EntryFold | undefined {
    if (n >= this.count) return undefined;
    const b = Math.floor(n / BLOCK);
    let block = this.#decoded[b];
    if (block === undefined) {
      const records = parseAt<EntryRecord[]>(this.#body, this.block(b));
      block = records.map((r, i) => decodeEntry(b * BLOCK + i, r, this.digest(b * BLOCK + i), this.#extras));
      this.#decoded[b] = block;
    }
    return block[n - b * BLOCK];
  }

  /** The digest of entry `n`'s fingerprints as stored (entry-fold.ts printsDigest); undefined when it has none. */
  digest(n: number): string | undefined {
    this.#digests ??= parseAt<Array<string | 0>>(this.#body, this.#sections.digests);
    return this.#digests[n] || undefined;
  }

  /** Runs after the reset of entry `n` (a stored fold's `afterAt`). */
  afterRuns(n: number): AfterRuns {
    return decodeAfter(parseAt<AfterRecord>(this.#body, this.after(n)));
  }

  /** True once block `b` was decoded (its folds may have changed since). */
  touched(b: number): boolean {
    return this.#decoded[b] !== undefined;
  }

  block(b: number): Section {
    this.#blocks ??= parseAt<number[]>(this.#body, this.#sections.blocks);
    return [this.#blocks[2 * b] as number, this.#blocks[2 * b + 1] as number];
  }

  after(n: number): Section {
    const at = this.#atList();
    return [at[n * AT] as number, at[n * AT + 1] as number];
  }

  kept(n: number): Section {
    const at = this.#atList();
    return [at[n * AT + 2] as number, at[n * AT + 3] as number];
  }

  #atList(): number[] {
    this.#at ??= parseAt<number[]>(this.#body, this.#sections.at);
    return this.#at;
  }

  readonly #extras = (n: number): Extras => parseAt<Extras>(this.#body, this.kept(n));
}

/**
 * Write `count` entries: each fold of `folds` (by number), or, for entries of a block `source` holds and never
 * decoded, its bytes. `copy` copies a section of the source's body.
 */
export function encodeEntries(body: Body, folds: ReadonlyArray<EntryFold | undefined>, count: number, source: StoredEntries | undefined, copy: (at: Section) => Section): EntrySections {
  const blocks: number[] = [];
  const at: number[] = [];
  const digests: Array<string | 0> = [];
  for (let from = 0, b = 0; from < count; from += BLOCK, b++) {
    const to = Math.min(count, from + BLOCK);
    // Folds of a block are only ever made by decoding it: an untouched block has none.
    if (source !== undefined && to <= source.count && !source.touched(b)) {
      blocks.push(...copy(source.block(b)));
      for (let n = from; n < to; n++) {
        at.push(...copy(source.after(n)), ...copy(source.kept(n)));
        digests.push(source.digest(n) ?? 0);
      }
      continue;
    }
    const records: string[] = [];
    for (let n = from; n < to; n++) {
      const fold = folds[n] ?? source?.entry(n) ?? newEntryFold(n);
      const after = fold.after === undefined ? copy((source as StoredEntries).after(fold.afterAt as number)) : body.text(afterRecord(fold.after));
      // Kept events never read since the snapshot was loaded are copied, with their mask and digest.
      const kept = fold instanceof StoredFold && fold.encoded ? { mask: fold.mask, key: fold.printsKey, at: copy((source as StoredEntries).kept(n)) } : keptEvents(fold, body);
      records.push(JSON.stringify(entryRecord(fold, kept.mask)));
      at.push(...after, ...kept.at);
      digests.push(kept.key ?? 0);
    }
    blocks.push(...body.text(`[${records.join(",")}]`));
  }
  return { blocks: body.json(blocks), at: body.json(at), digests: body.json(digests) };
}

/** The events `e` keeps, as one JSON object in the body (none: an empty section), with their mask and the digest of its fingerprints. */
function keptEvents(e: EntryFold, body: Body): { mask: number; key: string | undefined; at: Section } {
  const extras: Extras = {};
  if (e.lastArchived) extras.lastArchived = e.lastArchived;
  if (e.lastAffirmed) extras.lastAffirmed = e.lastAffirmed;
  if (e.verification) extras.verification = e.verification;
  const mask = extrasMask({ ...extras, ...(e.prints ? { prints: e.prints } : {}) });
  if (mask === 0) return { mask, key: undefined, at: [body.length, 0] };
  const json = JSON.stringify(extras);
  if (!e.prints) return { mask, key: undefined, at: body.text(json) };
  // The fingerprints' text is written once: the digest is of the very bytes stored.
  const prints = JSON.stringify(e.prints);
  const key = e.printsKey ?? digestOf(prints);
  return { mask, key, at: body.text(`${json.length > 2 ? `${json.slice(0, -1)},` : "{"}"prints":${prints}}`) };
}

function entryRecord(e: EntryFold, mask: number): EntryRecord {
  return [
    e.independent,
    e.primed,
    e.withheld,
    e.found,
    e.injectedRuns,
    e.named ? 1 : 0,
    e.lastReset ?? null,
    e.lastInjected ?? null,
    e.lastInjectedRun ?? null,
    e.afterRuns,
    e.heldOnlyRuns,
    mask,
  ];
}

/** An AfterRecord's JSON text, written directly (a snapshot holds one per entry: tens of thousands of pairs). */
function afterRecord(after: AfterRuns): string {
  const flat = (map: ReadonlyMap<number, string>): string => {
    let out = "";
    for (const [run, time] of map) out += `${out ? "," : ""}${run},"${time}"`;
    return `[${out}]`;
  };
  return `[${flat(after.injected)},${flat(after.held)}]`;
}

function decodeEntry(n: number, r: EntryRecord, printsKey: string | undefined, extras: (n: number) => Extras): EntryFold {
  const e = new StoredFold(n, r[11], printsKey, extras);
  e.independent = r[0];
  e.primed = r[1];
  e.withheld = r[2];
  e.found = r[3];
  e.injectedRuns = r[4];
  e.named = r[5] === 1;
  e.lastReset = r[6] ?? undefined;
  e.lastInjected = r[7] ?? undefined;
  e.lastInjectedRun = r[8] ?? undefined;
  e.afterRuns = r[9];
  e.heldOnlyRuns = r[10];
  // The runs after the last reset stay encoded until a hand-edited date or a new event needs them (found by number).
  e.afterAt = n;
  return e;
}

function decodeAfter([injected, held]: AfterRecord): AfterRuns {
  const after: AfterRuns = { injected: new Map(), held: new Map() };
  for (const [list, map] of [[injected, after.injected], [held, after.held]] as const) {
    for (let i = 0; i < list.length; i += 2) map.set(list[i] as number, list[i + 1] as string);
  }
  return after;
}
