/**
 * The "anchored code" of review-anchored entries, built in the bench (phase 1 of issue 10): the
 * set's anchored source files are materialised into bench/.cache/ with the set's own
 * `materialize.mjs`, and each anchor is resolved in that tree the way definition resolution will
 * resolve it in the product: the anchor's symbol at its definition (the one nearest the written
 * line), its body found by bracket matching. A simple finder for JavaScript, good enough to tune
 * field weights; the product-side field (snippets refreshed on source change) is phase 2.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { BenchAnchor, BenchDoc } from "./dataset.js";

/** Where the review-anchored tree is materialised (gitignored). */
export const ANCHORED_CACHE = path.resolve(import.meta.dirname, "../.cache/review-anchored");

/** Lines of code kept per anchor (the set's snapshot cuts at 60 too). */
export const MAX_ANCHOR_LINES = 60;

/** Write the set's source files under `ANCHORED_CACHE/src-snapshot` once; returns that directory. */
export function materializeAnchored(setDir: string, cache = ANCHORED_CACHE): string {
  const root = path.join(cache, "src-snapshot");
  if (!existsSync(root)) execFileSync(process.execPath, [path.join(setDir, "materialize.mjs"), cache], { stdio: "ignore" });
  return root;
}

/** Where an anchor lands in the materialised tree: same start line, moved to its symbol's definition, or not found. */
export type Resolution = { how: "exact" | "moved" | "missing"; start: number; end: number };

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Lines that define `symbol` (function declarations, `x.name = function`, `name: function`, arrows, method shorthand). */
function definitionLines(lines: readonly string[], symbol: string): number[] {
  const name = symbol === "exports" ? "module\\.exports" : escape(symbol);
  const patterns = [
    new RegExp(`\\bfunction\\s*\\*?\\s*${name}\\s*\\(`),
    new RegExp(`(^|[^\\w$])${name}\\s*[:=]\\s*(async\\s+)?function\\b`),
    new RegExp(`(^|[^\\w$.])(const|let|var)\\s+${name}\\s*=\\s*(async\\s+)?(\\([^)]*\\)|[\\w$]+)\\s*=>`),
    new RegExp(`(^|[^\\w$])${name}\\s*:\\s*(async\\s+)?(\\([^)]*\\)|[\\w$]+)\\s*=>`),
    new RegExp(`^\\s*(static\\s+|async\\s+|get\\s+|set\\s+)*#?${name}\\s*\\([^)]*\\)\\s*\\{`),
  ];
  const out: number[] = [];
  lines.forEach((line, i) => {
    if (patterns.some((p) => p.test(line))) out.push(i + 1);
  });
  return out;
}

/** Last line of the block opened at or after `start` (1-based), by bracket matching outside strings and comments. */
function blockEnd(lines: readonly string[], start: number): number {
  let depth = 0;
  let opened = false;
  let inBlockComment = false;
  for (let i = start - 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    let quote = "";
    for (let j = 0; j < line.length; j++) {
      const c = line[j]!;
      if (inBlockComment) {
        if (c === "*" && line[j + 1] === "/") (inBlockComment = false), j++;
        continue;
      }
      if (quote) {
        if (c === "\\") j++;
        else if (c === quote) quote = "";
        continue;
      }
      if (c === "/" && line[j + 1] === "/") break;
      if (c === "/" && line[j + 1] === "*") (inBlockComment = true), j++;
      else if (c === '"' || c === "'" || c === "`") quote = c;
      else if (c === "{") (depth++, (opened = true));
      else if (c === "}") depth--;
    }
    if (opened && depth <= 0) return i + 1;
  }
  return Math.min(lines.length, start + MAX_ANCHOR_LINES - 1);
}

/** Resolve one anchor in a file's current text: the definition of its symbol nearest the written start line. */
export function resolveAnchor(content: string, anchor: BenchAnchor): Resolution {
  const lines = content.split("\n");
  if (!anchor.symbol) return anchor.end <= lines.length ? { how: "exact", start: anchor.start, end: anchor.end } : { how: "missing", start: 0, end: 0 };
  const defs = definitionLines(lines, anchor.symbol);
  if (!defs.length) return { how: "missing", start: 0, end: 0 };
  const start = defs.reduce((best, d) => (Math.abs(d - anchor.start) < Math.abs(best - anchor.start) ? d : best));
  return { how: start === anchor.start ? "exact" : "moved", start, end: blockEnd(lines, start) };
}

/** One document's anchors resolved in the materialised tree, with the code each one points at. */
export type ResolvedAnchors = Array<BenchAnchor & { resolution: Resolution; code: string }>;

/** Resolve every anchor of every document; files are read once. */
export function resolveAnchors(root: string, docs: readonly BenchDoc[]): Map<string, ResolvedAnchors> {
  const files = new Map<string, string | undefined>();
  const read = (rel: string): string | undefined => {
    if (!files.has(rel)) {
      const abs = path.join(root, rel);
      files.set(rel, existsSync(abs) ? readFileSync(abs, "utf8") : undefined);
    }
    return files.get(rel);
  };
  const out = new Map<string, ResolvedAnchors>();
  for (const doc of docs) {
    out.set(
      doc.id,
      (doc.anchors ?? []).map((anchor) => {
        const content = read(anchor.path);
        const resolution: Resolution = content === undefined ? { how: "missing", start: 0, end: 0 } : resolveAnchor(content, anchor);
        const code =
          resolution.how === "missing" || content === undefined
            ? ""
            : content
                .split("\n")
                .slice(resolution.start - 1, Math.min(resolution.end, resolution.start + MAX_ANCHOR_LINES - 1))
                .join("\n");
        return { ...anchor, resolution, code };
      }),
    );
  }
  return out;
}
