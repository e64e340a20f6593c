/**
 * The code an entry's evidence anchors point at, as one bounded snippet per anchor: a symbol
 * anchor's definition where it is now (resolved as `check` resolves it, so an entry whose line range
 * drifted still finds its function), else the cited lines (or where they moved), else a whole small
 * file. It feeds the anchored-code lexical field, a ranking signal only: it is never shown to an agent.
 *
 * Bounds, for generated, vendored or hostile files (every step is linear in the bytes read):
 * - files over 1 MB are not read, nor files whose path leaves the repository (`..`, absolute paths,
 *   a symbolic link out of it: the locator refuses them), nor anchors into other repositories;
 * - a glob or a directory contributes nothing: it names many files, none of which is what the entry
 *   is about (`lib/rules/*.js` would make an entry match every rule);
 * - a file named without lines or symbol contributes only when it is small (≤ 60 lines): the head of
 *   a long file is imports and licence text;
 * - per anchor at most 60 lines (the review-anchored set's own cut) and 4 KB; per entry the first
 *   8 anchors and 16 KB. Real anchors are a function or a few lines: 1–3 per entry, well inside.
 */
import type { Anchor } from "../entry/types.js";
import { createLocator, repoKey, repoRelative, type Locator } from "./resolve.js";
import { CODE_FILE_BYTES, RACY_MS, signatureOf, textHash, type SourceSignature } from "./signature.js";
import type { LineRange } from "./types.js";

export type { SourceSignature } from "./signature.js";

export const CODE_LIMITS = {
  /** Anchored files larger than this are not read. */
  fileBytes: CODE_FILE_BYTES,
  linesPerAnchor: 60,
  bytesPerAnchor: 4096,
  anchors: 8,
  bytesPerEntry: 16 * 1024,
  /** A path anchor without lines or symbol indexes its whole file only up to this many lines. */
  wholeFileLines: 60,
} as const;

/** Where an anchor (by its position among the entry's anchors with a path) points now, when that differs from what is written. */
export type AnchorPlace = { index: number } & LineRange;

export type AnchoredCode = {
  /** The snippets, one per anchor that has code, separated by blank lines. */
  text: string;
  /** Every repository file the snippets depend on. */
  sources: SourceSignature[];
  /** Anchors that point elsewhere now (a symbol's definition, moved lines). */
  places: AnchorPlace[];
};

/**
 * One batch of snippet building: a locator (bounded reads, no search of other files for a message;
 * it caches what it reads) and the signature of each file, taken once, before the batch first reads
 * it, so every entry built from the cached text records the stat that text belongs to.
 */
export type CodeBatch = { locator: Locator; signature(rel: string): SourceSignature; repos: Record<string, string> };

/** A batch rooted at `root`; `repos`: configured other repositories, whose anchors (`repo:path`, or a path after the repository's name) contribute nothing. */
export function codeBatch(root: string, repos: Record<string, string> = {}): CodeBatch {
  const locator = createLocator(root, { maxFileBytes: CODE_LIMITS.fileBytes, searchElsewhere: false, suggestions: false });
  const sigs = new Map<string, SourceSignature>();
  return {
    locator,
    repos,
    signature(rel) {
      let sig = sigs.get(rel);
      if (!sig) {
        const at = Date.now();
        sig = signatureOf(locator.root, rel);
        // Racy: the text read next gets hashed (anchoredCode), so a same-size write in the same mtime tick is still noticed.
        if (sig.size >= 0 && at - sig.mtimeMs < RACY_MS) sig.hash = "";
        sigs.set(rel, sig);
      }
      return sig;
    },
  };
}

const GLOB = /[*?[\]{}]/;

/** Lines `range` of `lines`, at most `linesPerAnchor` of them and `bytes` characters (a hostile long line is cut). */
function snippet(lines: readonly string[], range: LineRange, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  const end = Math.min(range.end, range.start + CODE_LIMITS.linesPerAnchor - 1, lines.length);
  for (let l = range.start; l <= end && size < bytes; l++) {
    const line = (lines[l - 1] ?? "").slice(0, bytes - size);
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

/** The anchored code of `anchors` (an entry's evidence anchors, in order), read in `batch`. */
export async function anchoredCode(batch: CodeBatch, anchors: readonly Anchor[]): Promise<AnchoredCode> {
  const { locator, repos } = batch;
  const parts: string[] = [];
  const sources = new Map<string, SourceSignature>();
  const places: AnchorPlace[] = [];
  let total = 0;
  let used = 0;
  let index = -1;
  for (const anchor of anchors) {
    if (anchor.path === undefined) continue;
    index++;
    if (used >= CODE_LIMITS.anchors || total >= CODE_LIMITS.bytesPerEntry) break;
    if (anchor.repo !== undefined || (anchor.qualifier !== undefined && repoKey(repos, anchor.qualifier) !== undefined)) continue;
    const rel = repoRelative(anchor.path);
    if ("outside" in rel) continue;
    const before = batch.signature(rel.path);
    if ((anchor.glob || GLOB.test(rel.path)) && before.size < 0) continue;
    // Remember the path as written even when the locator finds the file elsewhere (a bare name, a rename): a file appearing here is noticed.
    if (!sources.has(rel.path)) sources.set(rel.path, before);
    if (before.size > CODE_LIMITS.fileBytes) continue;
    const resolved = await locator.locate(anchor);
    if (resolved.status !== "resolved" || resolved.repo !== undefined || resolved.file === undefined) continue;
    const file = resolved.file;
    if (file !== rel.path && !sources.has(file)) {
      // Found elsewhere (a bare name, a rename): stat-ed after the locator read it; a racy stat keeps the hash of what was read.
      const sig = batch.signature(file);
      sources.set(file, sig);
      if (sig.size < 0 || sig.size > CODE_LIMITS.fileBytes) continue;
    }
    const facts = await locator.files.facts(file);
    if ("error" in facts) continue;
    const sig = sources.get(file)!;
    if (sig.hash === "") sig.hash = textHash(facts.lines);
    // The code: a symbol's whole definition; the place (for changed hunks): the cited lines while they still hold it, else where it is now.
    let range = resolved.definition ?? resolved.range;
    const place = resolved.range ?? resolved.definition;
    if (!range) {
      if (anchor.symbol !== undefined || anchor.startLine !== undefined || facts.lineCount > CODE_LIMITS.wholeFileLines || facts.lineCount === 0) continue;
      range = { start: 1, end: facts.lineCount };
    }
    const text = snippet(facts.lines, range, Math.min(CODE_LIMITS.bytesPerAnchor, CODE_LIMITS.bytesPerEntry - total));
    if (!text.trim()) continue;
    parts.push(text);
    total += text.length + 2;
    used++;
    if (place && (place.start !== anchor.startLine || place.end !== (anchor.endLine ?? anchor.startLine))) places.push({ index, start: place.start, end: place.end });
  }
  return { text: parts.join("\n\n"), sources: [...sources.values()], places };
}
