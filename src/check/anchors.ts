/** Resolve evidence anchors against the repository's files, producing diagnostics. */
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { glob } from "tinyglobby";
import { type Diagnostic, diagnostic } from "../entry/diagnostic.js";
import type { Anchor } from "../entry/types.js";
import { CairnError } from "../errors.js";

/*
 * Decisions:
 * - Symbol-only anchors (no path) are not resolved: there is no file to check, and a repo-wide
 *   search per symbol is too costly for `cairn check`. They produce no diagnostic.
 * - A symbol is found when the last segment (`listen` of `Server.listen`, `new` of `Foo::new`) occurs
 *   as a whole word in the file. The full symbol always contains that word, so a file holding the
 *   full symbol passes; a file holding only the last segment passes too (methods are rarely written
 *   qualified). Each file is tokenised once into a word set, so a check is O(1) after the first read.
 * - The symbol is searched in the whole file, not only inside the line range (ranges drift; the
 *   range is only checked against the file's length).
 * - Globs are matched against one cached listing of the repository (ignoring node_modules, .git,
 *   .cairn, dist and `options.ignore`); a glob with a line range passes when any matched file is
 *   long enough, a glob with a symbol when any matched file contains it.
 * - Explicit paths are checked directly (ignore patterns do not apply to them); a path that is a
 *   directory passes, but a line range on it is an error, and its symbol is searched in its files.
 * - Explicit paths are resolved with realpath: a symlink leading outside the root is
 *   `anchor-outside-repo`. Globs never match symbolic links (the listing does not follow them).
 */

export type AnchorResolver = { resolve(anchor: Anchor, file: string): Promise<Diagnostic[]> };

export type AnchorResolverOptions = {
  /** Extra glob patterns (repo-relative) that glob anchors never match; default `[]`. `node_modules`, `.git`, `.cairn` and `dist` are always ignored. */
  ignore?: string[];
};

/** Directories glob anchors never look into. */
export const DEFAULT_ANCHOR_IGNORE: readonly string[] = ["**/node_modules/**", "**/.git/**", ".cairn/**", "dist/**"];

const UNRESOLVED = "anchor-unresolved";
const OUTSIDE = "anchor-outside-repo";
const EXAMPLE = "expected a repo-relative path such as src/x.ts";

type Target = { kind: "file" | "dir"; rel: string } | { kind: "missing" } | { kind: "outside"; real: string };
type FileFacts = { lineCount: number; text?: string; words?: Set<string> } | { error: string };

/** A resolver for a project: glob anchors never match the knowledge directory itself (entries anchor into code). */
export function anchorResolverFor(layout: { root: string; knowledge: string }): AnchorResolver {
  const knowledge = path.relative(layout.root, layout.knowledge).split(path.sep).join("/");
  return createAnchorResolver(layout.root, knowledge && !knowledge.startsWith("..") ? { ignore: [`${knowledge}/**`] } : {});
}

/** Creates a resolver rooted at the repository root; caches directory listings and file contents across calls (one `cairn check` run resolves thousands of anchors). */
export function createAnchorResolver(root: string, options: AnchorResolverOptions = {}): AnchorResolver {
  const absRoot = path.resolve(root);
  const ignore = [...DEFAULT_ANCHOR_IGNORE, ...(options.ignore ?? [])];
  let realRoot: Promise<string> | undefined;
  let listing: Promise<string[]> | undefined;
  const targets = new Map<string, Promise<Target>>();
  const facts = new Map<string, Promise<FileFacts>>();
  const globs = new Map<string, Promise<string[]>>();

  const getRealRoot = (): Promise<string> =>
    (realRoot ??= realpath(absRoot).catch((cause: unknown) => {
      throw new CairnError("IO", `cannot resolve evidence anchors: the repository root ${absRoot} is not readable; expected an existing directory`, { cause });
    }));

  /** Every non-ignored file under the root, sorted, forward slashes. */
  const getListing = (): Promise<string[]> =>
    (listing ??= glob(["**/*"], { cwd: absRoot, ignore, dot: true, followSymbolicLinks: false, expandDirectories: false }).then((files) =>
      files.sort(),
    ));

  const getTarget = (rel: string): Promise<Target> => {
    let cached = targets.get(rel);
    if (!cached) {
      cached = locate(rel);
      targets.set(rel, cached);
    }
    return cached;
  };

  const locate = async (rel: string): Promise<Target> => {
    const base = await getRealRoot();
    let real: string;
    try {
      real = await realpath(path.join(absRoot, rel));
    } catch {
      return { kind: "missing" };
    }
    if (!isInside(base, real)) return { kind: "outside", real };
    try {
      const info = await stat(real);
      return { kind: info.isDirectory() ? "dir" : "file", rel };
    } catch {
      return { kind: "missing" };
    }
  };

  const getFacts = (rel: string): Promise<FileFacts> => {
    let cached = facts.get(rel);
    if (!cached) {
      cached = readFacts(rel);
      facts.set(rel, cached);
    }
    return cached;
  };

  const readFacts = async (rel: string): Promise<FileFacts> => {
    const target = await getTarget(rel);
    if (target.kind !== "file") return { error: target.kind === "outside" ? "it leads outside the repository" : `it is not a file (${target.kind})` };
    try {
      const text = await readFile(path.join(absRoot, rel), "utf8");
      return { lineCount: countLines(text), text };
    } catch (cause) {
      return { error: `it could not be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})` };
    }
  };

  const hasWord = async (rel: string, word: string): Promise<boolean> => {
    const f = await getFacts(rel);
    if ("error" in f) return false;
    if (!f.words) {
      f.words = new Set((f.text ?? "").match(/[\w$]+/g));
      delete f.text;
    }
    return f.words.has(word);
  };

  const matchGlob = (pattern: string): Promise<string[]> => {
    let cached = globs.get(pattern);
    if (!cached) {
      cached = getListing().then((files) => filterByGlob(files, pattern));
      globs.set(pattern, cached);
    }
    return cached;
  };

  const filesUnder = async (dir: string): Promise<string[]> => {
    const files = await getListing();
    return dir === "." ? files : prefixRange(files, `${dir}/`);
  };

  return {
    async resolve(anchor, file) {
      if (anchor.path === undefined) return [];
      const at = { line: anchor.line, column: anchor.column };
      const fail = (rule: string, message: string): Diagnostic => diagnostic(file, rule, "error", `evidence anchor \`${anchor.raw}\`: ${message}`, at);
      const rel = repoRelative(anchor.path);
      if ("outside" in rel) return [fail(OUTSIDE, `${rel.outside}; ${EXAMPLE}`)];

      const out: Diagnostic[] = [];
      const { startLine, endLine } = anchor;
      let rangeOk = true;
      if (startLine !== undefined && startLine < 1) {
        out.push(fail(UNRESOLVED, `line ${startLine} does not exist; expected line numbers starting at 1, e.g. ${rel.path}:1`));
        rangeOk = false;
      } else if (startLine !== undefined && endLine !== undefined && startLine > endLine) {
        out.push(fail(UNRESOLVED, `the range ${startLine}-${endLine} starts after it ends; expected START <= END, e.g. ${rel.path}:${endLine}-${startLine}`));
        rangeOk = false;
      }
      const lastLine = rangeOk ? (endLine ?? startLine) : undefined;

      let isGlob = anchor.glob ?? /[*?[\]{}]/.test(rel.path);
      let files: string[] = [];
      // A literal path with glob characters (Next.js `app/[id]/page.tsx`) is taken as written.
      if (isGlob) files = await matchGlob(rel.path);
      if (isGlob && files.length === 0 && (await getTarget(rel.path)).kind !== "missing") isGlob = false;
      if (isGlob) {
        if (files.length === 0) {
          const skipped = "node_modules, .git, .cairn and dist are not searched";
          return [...out, fail(UNRESOLVED, `the glob ${rel.path} matches no file under the repository root (${skipped}); ${EXAMPLE} or src/**/*.ts`)];
        }
      } else {
        const target = await getTarget(rel.path);
        if (target.kind === "outside") return [...out, fail(OUTSIDE, `${rel.path} is a symbolic link that leads outside the repository; ${EXAMPLE}`)];
        if (target.kind === "missing") return [...out, fail(UNRESOLVED, `${rel.path} matches no file under the repository root; ${EXAMPLE}`)];
        if (target.kind === "dir" && lastLine !== undefined) {
          return [...out, fail(UNRESOLVED, `${rel.path} is a directory, so it has no line ${lastLine}; expected a file path with a line range, e.g. ${rel.path}/index.ts:${lastLine}`)];
        }
        files = target.kind === "dir" ? await filesUnder(rel.path) : [rel.path];
      }

      if (lastLine !== undefined) {
        const problem = await checkLines(files, lastLine, getFacts);
        if (problem) out.push(fail(UNRESOLVED, isGlob ? `line ${lastLine} is past the end of every file matched by ${rel.path} (the longest has ${problem.lines} lines); expected a range within the file` : problem.message(rel.path)));
      }
      if (anchor.symbol !== undefined) {
        const word = lastSegment(anchor.symbol);
        let found = false;
        for (const f of files) if ((found = await hasWord(f, word))) break;
        if (!found) {
          const where = isGlob ? `any of the ${files.length} files matched by ${rel.path}` : rel.path;
          const searched = word === anchor.symbol ? "" : ` (searched for \`${anchor.symbol}\` and the word \`${word}\`)`;
          out.push(fail(UNRESOLVED, `the symbol \`${anchor.symbol}\` does not occur in ${where}${searched}; expected the symbol named in the anchor to appear in the file`));
        }
      }
      return out;
    },
  };
}

/** Normalise to a repo-relative POSIX path, or say why it leaves the repository. */
function repoRelative(raw: string): { path: string } | { outside: string } {
  if (path.posix.isAbsolute(raw) || path.win32.isAbsolute(raw) || raw.startsWith("~")) {
    return { outside: `${raw} is an absolute path, which points outside the repository` };
  }
  const normal = path.posix.normalize(raw.replace(/\\/g, "/"));
  if (normal === ".." || normal.startsWith("../")) return { outside: `${raw} leaves the repository through \`..\`` };
  return { path: normal.replace(/\/+$/, "") || "." };
}

async function checkLines(
  files: string[],
  lastLine: number,
  getFacts: (rel: string) => Promise<FileFacts>,
): Promise<{ lines: number; message: (p: string) => string } | undefined> {
  let longest = 0;
  let error: string | undefined;
  for (const f of files) {
    const facts = await getFacts(f);
    if ("error" in facts) {
      error ??= facts.error;
      continue;
    }
    if (facts.lineCount >= lastLine) return undefined;
    longest = Math.max(longest, facts.lineCount);
  }
  if (error && files.length === 1) return { lines: 0, message: (p) => `cannot check line ${lastLine} of ${p}: ${error}` };
  return {
    lines: longest,
    message: (p) => `line ${lastLine} is past the end of ${p}, which has ${longest} line${longest === 1 ? "" : "s"}; expected a range within 1-${longest}`,
  };
}

/** Lines as an editor shows them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

function lastSegment(symbol: string): string {
  return symbol.split(/\.|::|#|->/).pop() || symbol;
}

function filterByGlob(files: string[], pattern: string): string[] {
  const base = picomatch.scan(pattern).base;
  const candidates = base ? prefixRange(files, `${base}/`) : files;
  const isMatch = picomatch(pattern, { dot: true });
  return candidates.filter((f) => isMatch(f));
}

/** The files of a sorted list that start with `prefix` (binary search for the first one). */
function prefixRange(sorted: string[], prefix: string): string[] {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
  return sorted.slice(lo, end);
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
