/**
 * The bookkeeping that keeps each entry's anchored-code lexical field fresh (entry-code.ts builds
 * it): the hash the lexical index holds per entry, which entries read which source files, and which
 * of those files changed since (one stat per distinct file per refresh). Light: loaded by every
 * refresh, while the builder (anchor resolution) is loaded only to build.
 */
import { fileTextHash, RACY_MS, signatureOf } from "../anchors/signature.js";
import type { Anchor } from "../entry/types.js";
import { shortHash, type CatalogueRecord } from "./catalogue.js";
import type { StoredCatalogue } from "./catalogue-store.js";
import type { Table } from "./catalogue-table.js";
import type { AnchorRef } from "./document.js";

/** The hash the lexical index keeps for a record's document: its entry fields and, once built, its anchored code. */
export function docHash(record: Pick<CatalogueRecord, "lexicalHash" | "code">): string {
  return record.code ? shortHash(`${record.lexicalHash}\0${record.code.hash}`) : record.lexicalHash;
}

/** A key of an entry's anchors as written: a frontmatter-only edit keeps it (and the code built for it). */
export function anchorsKey(anchors: readonly Anchor[]): string {
  return shortHash(JSON.stringify(anchors.map((a) => [a.repo ?? "", a.qualifier ?? "", a.path ?? "", a.startLine ?? 0, a.endLine ?? 0, a.symbol ?? "", a.glob ? 1 : 0])), 16);
}

/**
 * Entries (first by path per id) whose anchored files changed since their code was built: one stat per
 * distinct file. A record still encoded is checked from its table row; a signature kept with a hash (stat-ed
 * within RACY_MS of the mtime) is compared by content, on the decoded record, and the hash is dropped once
 * the mtime is older than that (`settled` says some record was updated so).
 */
export function changedSources(root: string, catalogue: StoredCatalogue, now = Date.now()): { stale: Set<string>; settled: boolean } {
  const stats = new Map<string, { size: number; mtimeMs: number }>();
  const statOf = (file: string) => {
    let current = stats.get(file);
    if (!current) stats.set(file, (current = signatureOf(root, file)));
    return current;
  };
  // Each distinct saved signature once: most often none changed, and no encoded record needs a look.
  const table = catalogue.storage?.table;
  const saved = table ? savedSignatureChanges(table, statOf) : { changed: new Set<number>(), hashed: new Set<number>() };
  const hashes = new Map<string, string | undefined>();
  const stale = new Set<string>();
  let settled = false;
  for (const [id, k] of catalogue.positions()) {
    if (!catalogue.hasCodeAt(k)) continue;
    const signatures = savedSignaturesAt(catalogue, k);
    if (signatures) {
      if (!saved.changed.size && !saved.hashed.size) continue;
      if (signatures.some((n) => saved.changed.has(n))) {
        stale.add(id);
        continue;
      }
      if (!signatures.some((n) => saved.hashed.has(n))) continue;
    }
    for (const sig of catalogue.at(k).code?.sources ?? []) {
      const current = statOf(sig.path);
      if (current.size !== sig.size || current.mtimeMs !== sig.mtimeMs) {
        stale.add(id);
        break;
      }
      if (sig.hash === undefined) continue;
      if (!hashes.has(sig.path)) hashes.set(sig.path, fileTextHash(root, sig.path));
      if (hashes.get(sig.path) !== sig.hash) {
        stale.add(id);
        break;
      }
      if (now - sig.mtimeMs >= RACY_MS) {
        sig.hash = undefined;
        settled = true;
      }
    }
  }
  return { stale, settled };
}

/** A record's anchors where they point now (a symbol at its definition, moved lines): what the changed-code signal compares with hunks. */
export function placedAnchors(record: Pick<CatalogueRecord, "anchors" | "code">): AnchorRef[] {
  const places = record.code?.places;
  if (!places?.length) return record.anchors;
  const out = [...record.anchors];
  for (const p of places) {
    const anchor = out[p.index];
    if (anchor) out[p.index] = { ...anchor, startLine: p.start, endLine: p.end };
  }
  return out;
}

/** Every repository file some entry's anchored code was read from (or waits for), sorted. */
export function sourcePaths(catalogue: StoredCatalogue): string[] {
  const out = new Set<string>();
  for (const k of catalogue.positions().values()) {
    const saved = savedSignaturesAt(catalogue, k);
    if (saved) for (const n of saved) out.add(signaturePath(catalogue.storage!.table, n));
    else for (const sig of catalogue.hasCodeAt(k) ? (catalogue.at(k).code?.sources ?? []) : []) out.add(sig.path);
  }
  return [...out].sort();
}

/**
 * The saved signatures whose file changed since (`changed`, given the file's size and mtime now) or that are compared
 * by content (`hashed`, stat-ed within the racy window): one look at each distinct signature of the table.
 */
function savedSignatureChanges(table: Table, statOf: (file: string) => { size: number; mtimeMs: number }): { changed: Set<number>; hashed: Set<number> } {
  const changed = new Set<number>();
  const hashed = new Set<number>();
  const sigs = table.signatures;
  for (let n = 0; n < sigs.length / 4; n++) {
    const now = statOf(signaturePath(table, n));
    if (now.size !== sigs[n * 4 + 1] || now.mtimeMs !== sigs[n * 4 + 2]) changed.add(n);
    else if (sigs[n * 4 + 3] !== 0) hashed.add(n);
  }
  return { changed, hashed };
}

/** The signatures (numbers of the table) a saved record's anchored code was read from; undefined when the record is in memory (its `code` says) or has no code. */
export function savedSignaturesAt(catalogue: StoredCatalogue, k: number): readonly number[] | undefined {
  const i = catalogue.savedLineAt(k);
  const table = catalogue.storage?.table;
  const set = i < 0 || !table ? -1 : table.code[i]!;
  return set < 0 ? undefined : table!.sets[set];
}

export function signaturePath(table: Table, n: number): string {
  return table.sources[table.signatures[n * 4] as number]!;
}
