/**
 * Resolve an evidence anchor against the repository: paths, globs, bare file names, renamed files,
 * symbols (to their definitions), line ranges (and where they moved), anchors into other
 * repositories, and the anchored lines' fingerprint from the ledger.
 *
 * Decisions:
 * - Explicit paths are checked directly (ignore patterns do not apply); a directory passes (a line
 *   range on it is an error, its symbol is searched in its files); realpath leaving the root is
 *   `anchor-outside-repo`. Globs match one cached listing and never follow symbolic links.
 * - A bare file name (`lib.sh`) not at the root is looked up by basename: unique → that file;
 *   several → `anchor-ambiguous` (narrowed by the word before it when that names a directory);
 *   none → unresolved, except for a *mention* in prose, which is not reported.
 * - A missing path that git saw renamed is `anchor-renamed` (the new path is checked in its place).
 * - Symbol-only anchors are not resolved (no file to look in).
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Anchor } from "../entry/types.js";
import type { AnchorFingerprint } from "../ledger/events.js";
import { findWindow, hashLines, printFor, type ConfirmedPrints } from "./fingerprint.js";
import { loadRenames, type Renames } from "./renames.js";
import { checkoutRefusal } from "./checkout.js";
import { DEFAULT_ANCHOR_IGNORE, repoFiles, type RepoFiles } from "./repo-files.js";
import { elsewhereFinder, lastSegment, resolveSymbol, type Elsewhere } from "./symbols.js";
import type { AnchorProblem, LineRange, ResolvedAnchor } from "./types.js";

export type LocatorOptions = {
  /** Extra glob patterns (repo-relative) that glob anchors never match; default `[]`. */
  ignore?: string[];
  /** Other repositories' checkouts by name, relative to the root (config `repos`); default none. */
  repos?: Record<string, string>;
  /** The latest fingerprinted confirmation per entry id (from the ledger); default: no fingerprints. */
  fingerprints?: () => Promise<Pick<ReadonlyMap<string, ConfirmedPrints>, "get">>;
  /** Look for renamed files with git; default true. */
  renames?: boolean;
  /** Told of every repository fact a resolution reads (a file, the listing, git's renames), so a result can be cached with what it depends on; default none. */
  onAccess?: (access: Access) => void;
  /** Files larger than this many bytes are not read (the anchor cannot be checked there); default: no limit. */
  maxFileBytes?: number;
  /** Look for a symbol's definition in other files of the same language when the cited file only uses it (reads up to 3,000 files, for the message); default true. */
  searchElsewhere?: boolean;
  /** Suggest similarly named files when a path is missing (lists the repository, for the message); default true. */
  suggestions?: boolean;
};

/** What a resolution read: one file (its existence and content), the repository's file listing, or git's rename history. */
export type Access = { kind: "file"; path: string } | { kind: "dir"; path: string } | { kind: "listing" } | { kind: "git" } | { kind: "external"; repo: string };

/** Who the anchor belongs to: the entry's id and `lastConfirmed` (for its fingerprints). */
export type LocateContext = { entryId?: string; lastConfirmed?: string };

export type Locator = {
  root: string;
  files: RepoFiles;
  locate(anchor: Anchor, context?: LocateContext): Promise<ResolvedAnchor>;
  /** The fingerprint to store for a resolved anchor at a confirmation; undefined when it has no lines. */
  fingerprint(resolved: ResolvedAnchor): Promise<AnchorFingerprint | undefined>;
};

const EXAMPLE = "expected a repo-relative path such as src/x.ts";
/** Words before a path that say nothing about where it lives. */
const PROSE_WORDS = new Set("in at of from the a an and or see to into inside within under on by for per with via also our its their this that both".split(" "));

export function createLocator(root: string, options: LocatorOptions = {}): Locator {
  const limits = options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes };
  const files = tracked(repoFiles(root, [...DEFAULT_ANCHOR_IGNORE, ...(options.ignore ?? [])], limits), options.onAccess);
  const elsewhere: Elsewhere = options.searchElsewhere === false ? async () => undefined : elsewhereFinder(files);
  let renames: Promise<Renames> | undefined;
  let prints: Promise<Pick<ReadonlyMap<string, ConfirmedPrints>, "get">> | undefined;
  const siblings = new Map<string, Locator>();
  const repos = options.repos ?? {};

  const getRenames = (): Promise<Renames> => (options.onAccess?.({ kind: "git" }), renames ??= options.renames === false ? Promise.resolve({ follow: () => undefined, followDir: () => undefined }) : loadRenames(files.root));
  const printOf = async (anchor: Anchor, file: string, context: LocateContext): Promise<AnchorFingerprint | undefined> => {
    if (!options.fingerprints || context.entryId === undefined) return undefined;
    prints ??= options.fingerprints();
    return printFor((await prints).get(context.entryId), anchor, file, context.lastConfirmed);
  };

  const sibling = (name: string): { locator?: Locator; dir?: string; name: string; refused?: string } => {
    const key = repoKey(repos, name);
    if (key === undefined) return { name };
    const dir = path.resolve(files.root, repos[key]!);
    const refused = checkoutRefusal(files.root, dir);
    if (refused) return { name: key, refused };
    let locator = siblings.get(key);
    if (!locator) {
      locator = createLocator(dir, { renames: options.renames ?? true });
      siblings.set(key, locator);
    }
    return { locator, dir, name: key };
  };

  const external = async (name: string, anchor: Anchor, rest: string): Promise<ResolvedAnchor> => {
    options.onAccess?.({ kind: "external", repo: name });
    const { locator, dir, name: key, refused } = sibling(name);
    const where = `${key}:${rest}`;
    if (refused) {
      // Nothing there is read (a hostile config could point at / and learn which files exist on a CI runner).
      const message = `\`${where}\` is in the repository \`${key}\`, whose checkout ${repos[key]} ${refused}; cairn reads other repositories only in checkouts beside this one, e.g. "../${key}" (not checked)`;
      return { anchor, status: "external", repo: key, files: [], drifted: false, problems: [{ rule: "anchor-external", severity: "warning", message, short: `in repository ${key}, not checked` }] };
    }
    if (!locator || !dir || !(await stat(dir).then((s) => s.isDirectory(), () => false))) {
      const message = !locator
        ? `\`${where}\` is in another repository, \`${name}\`, which is not configured; add \`"repos": {"${name}": "../${name}"}\` to cairn.config.json to check it (not checked)`
        : `\`${where}\` is in the repository \`${key}\`, whose checkout ${repos[key]} is not present; clone it there to check the anchor (not checked)`;
      return { anchor, status: "external", repo: key, files: [], drifted: false, problems: [{ rule: "anchor-external", severity: "warning", message, short: `in repository ${key}, not checked` }] };
    }
    const { repo: _r, qualifier: _q, ...local } = anchor;
    const inner = await locator.locate({ ...local, path: rest });
    const label = (m: string): string => `in repository ${key} (${repos[key]}): ${m}`;
    return { ...inner, anchor, repo: key, problems: inner.problems.map((p) => ({ ...p, message: label(p.message) })) };
  };

  const locate = async (anchor: Anchor, context: LocateContext = {}): Promise<ResolvedAnchor> => {
    const out: ResolvedAnchor = { anchor, status: "unchecked", files: [], drifted: false, problems: [] };
    if (anchor.path === undefined) return out;
    if (anchor.repo !== undefined) return external(anchor.repo, anchor, anchor.path);
    if (anchor.qualifier !== undefined && repoKey(repos, anchor.qualifier) !== undefined) return external(anchor.qualifier, anchor, anchor.path);
    const fail = (rule: AnchorProblem["rule"], message: string, short: string): ResolvedAnchor => {
      out.status = "unresolved";
      out.problems.push({ rule, severity: rule === "anchor-ambiguous" ? "warning" : "error", message, short });
      return out;
    };
    const rel = repoRelative(anchor.path);
    if ("outside" in rel) return fail("anchor-outside-repo", `${rel.outside}; ${EXAMPLE}`, "the path leaves the repository");

    const { startLine, endLine } = anchor;
    let cited: LineRange | undefined;
    if (startLine !== undefined && startLine < 1) fail("anchor-unresolved", `line ${startLine} does not exist; expected line numbers starting at 1, e.g. ${rel.path}:1`, `line ${startLine} does not exist`);
    else if (startLine !== undefined && endLine !== undefined && startLine > endLine) {
      fail("anchor-unresolved", `the range ${startLine}-${endLine} starts after it ends; expected START <= END, e.g. ${rel.path}:${endLine}-${startLine}`, `the range ${startLine}-${endLine} is backwards`);
    } else if (startLine !== undefined) cited = { start: startLine, end: endLine ?? startLine };

    let file = rel.path;
    let isGlob = anchor.glob ?? /[*?[\]{}]/.test(file);
    let matched: string[] = [];
    const bare = !file.includes("/");
    if (isGlob) {
      matched = await files.glob(bare ? `**/${file}` : file);
      // A literal path with glob characters (Next.js `app/[id]/page.tsx`) is taken as written.
      if (matched.length === 0 && (await files.target(file)).kind !== "missing") isGlob = false;
      else if (matched.length === 0) {
        if (anchor.mention) return out;
        const skipped = "node_modules, .git, .cairn and dist are not searched";
        return fail("anchor-unresolved", `the glob ${file} matches no file under the repository root (${skipped}); ${EXAMPLE} or src/**/*.ts`, `the glob ${file} matches nothing`);
      }
    }
    if (!isGlob) {
      let target = await files.target(file);
      if (target.kind === "missing" && bare) {
        const candidates = narrow(await files.byBasename(file), anchor.qualifier);
        if (candidates.length === 1) {
          file = candidates[0]!;
          target = await files.target(file);
        } else if (candidates.length > 1) {
          out.problems.push({
            rule: "anchor-ambiguous",
            severity: "warning",
            message: `the file name ${file} matches ${candidates.length} files (${list(candidates)}); expected a path that names one, e.g. ${candidates[0]}`,
            short: `${file} is ambiguous (${candidates.length} files)`,
          });
          matched = candidates;
          isGlob = true;
        } else if (anchor.mention) return out;
      }
      if (!isGlob && target.kind === "missing") {
        const renamed = await renamedTarget(file);
        if (renamed) {
          out.drifted = true;
          out.problems.push({
            rule: "anchor-renamed",
            severity: "warning",
            message: `${file} was renamed to ${renamed.to} (git: ${renamed.commit}${renamed.date ? ` on ${renamed.date}` : ""}); run \`cairn check --fix\` to update the anchor`,
            short: `${file} was renamed to ${renamed.to}`,
            fix: { path: renamed.to },
          });
          file = renamed.to;
          target = await files.target(file);
        }
      }
      if (!isGlob) {
        if (target.kind === "outside") return fail("anchor-outside-repo", `${file} is a symbolic link that leads outside the repository; ${EXAMPLE}`, "the path leaves the repository");
        if (target.kind === "missing") {
          const sibling = anchor.qualifier !== undefined && !PROSE_WORDS.has(anchor.qualifier.toLowerCase()) ? `; if \`${anchor.qualifier}\` is another repository, write ${anchor.qualifier}:${file} or add it to \`repos\` in cairn.config.json` : "";
          return fail("anchor-unresolved", `${file} matches no file under the repository root${await didYouMean(file)}; ${EXAMPLE}${sibling}`, `${file} does not exist`);
        }
        if (target.kind === "dir" && cited) {
          return fail("anchor-unresolved", `${file} is a directory, so it has no line ${cited.end}; expected a file path with a line range, e.g. ${file}/index.ts:${cited.end}`, `${file} is a directory`);
        }
        matched = target.kind === "dir" ? await files.under(file) : [file];
        if (target.kind === "file") out.file = file;
      }
    }
    out.files = matched;
    out.status = "resolved";
    if (out.file !== undefined) await single(out, out.file, cited, await printOf(anchor, out.file, context), context);
    else await many(out, matched, cited, isGlob ? file : `${file}/`);
    if (out.problems.some((p) => p.severity === "error" && p.rule !== "anchor-ambiguous")) out.status = "unresolved";
    if (out.problems.some((p) => p.rule === "anchor-moved" || p.rule === "anchor-changed")) out.drifted = true;
    return out;
  };

  /** One file: the symbol's definition, line range, fingerprint. */
  const single = async (out: ResolvedAnchor, file: string, cited: LineRange | undefined, print: AnchorFingerprint | undefined, context: LocateContext): Promise<void> => {
    const facts = await files.facts(file);
    if ("error" in facts) {
      if (cited) out.problems.push(problem("anchor-unresolved", `cannot check line ${cited.end} of ${file}: ${facts.error}`, `${file} cannot be read`));
      return;
    }
    const anchor = out.anchor;
    if (anchor.symbol !== undefined) {
      const result = await resolveSymbol(files, file, anchor as Anchor & { symbol: string }, cited, print, elsewhere);
      out.problems.push(...result.problems);
      if (result.definition) out.definition = result.definition;
      out.range = result.range ?? result.definition ?? cited;
      if (result.definition && print?.symbol === anchor.symbol && hashLines(facts.lines, result.definition.start, result.definition.end) !== print.hash) {
        out.problems.push(changed(file, result.definition, context));
      }
      if (result.definition) {
        if (out.range === cited && cited && cited.end > facts.lineCount) out.problems.push(pastEnd(file, cited, facts.lineCount));
        return;
      }
      // The symbol left the file: that is the problem to report, not the lines it left behind.
      if (result.problems.length) return;
    }
    if (!cited) return;
    if (print && print.symbol === undefined) {
      const length = print.end - print.start + 1;
      if (cited.end <= facts.lineCount && hashLines(facts.lines, cited.start, cited.end) === print.hash) return;
      const at = findWindow(facts.lines, length, print.hash, cited.start);
      if (at !== undefined && at !== cited.start) {
        const to = { start: at, end: at + length - 1 };
        out.range = to;
        out.problems.push({ rule: "anchor-moved", severity: "warning", message: `the cited lines ${cited.start}-${cited.end} of ${file} moved to ${to.start}-${to.end} (same content); run \`cairn check --fix\` to update the anchor`, short: `the cited lines moved to ${to.start}-${to.end}`, fix: { range: to } });
        return;
      }
      if (cited.end <= facts.lineCount) {
        out.problems.push(changed(file, cited, context));
        return;
      }
    }
    if (cited.end > facts.lineCount) out.problems.push(pastEnd(file, cited, facts.lineCount));
  };

  /** A glob, a directory or an ambiguous name: any matched file may satisfy the range and the symbol. */
  const many = async (out: ResolvedAnchor, matched: string[], cited: LineRange | undefined, label: string): Promise<void> => {
    const anchor = out.anchor;
    if (cited) {
      let longest = 0;
      let ok = false;
      for (const f of matched) {
        const facts = await files.facts(f);
        if ("error" in facts) continue;
        if (facts.lineCount >= cited.end) {
          ok = true;
          break;
        }
        longest = Math.max(longest, facts.lineCount);
      }
      if (!ok) out.problems.push(problem("anchor-unresolved", `line ${cited.end} is past the end of every file matched by ${label} (the longest has ${longest} lines); expected a range within the file`, `line ${cited.end} is past the end of every matched file`));
    }
    if (anchor.symbol === undefined) return;
    let usedOnly = false;
    for (const f of matched) {
      const defs = await files.definitions(f);
      if (defs ? defs.find(anchor.symbol).length > 0 : await files.hasWord(f, lastSegment(anchor.symbol))) return;
      if (defs && defs.language !== "markdown" && (await files.hasWord(f, lastSegment(anchor.symbol)))) usedOnly = true;
    }
    const where = `any of the ${matched.length} files matched by ${label}`;
    if (usedOnly) out.problems.push({ rule: "anchor-not-definition", severity: "warning", message: `\`${anchor.symbol}\` is used in ${where} but defined in none of them; expected the anchor to name the files that define it`, short: `\`${anchor.symbol}\` is not defined there` });
    else out.problems.push(problem("anchor-unresolved", `the symbol \`${anchor.symbol}\` does not occur in ${where}; expected the symbol named in the anchor to appear in the file`, `\`${anchor.symbol}\` is not in the matched files`));
  };

  const renamedTarget = async (file: string): Promise<{ to: string; commit: string; date: string } | undefined> => {
    const map = await getRenames();
    const renamed = map.follow(file) ?? map.followDir(file) ?? dirOfFile(map, file);
    if (!renamed || renamed.to === file) return undefined;
    return (await files.target(renamed.to)).kind === "missing" ? undefined : renamed;
  };

  const didYouMean = async (file: string): Promise<string> => {
    if (options.suggestions === false) return "";
    const base = file.slice(file.lastIndexOf("/") + 1);
    const same = (await files.byBasename(base)).filter((f) => f !== file);
    const suffix = same.filter((f) => f.endsWith(`/${file}`));
    const candidates = suffix.length ? suffix : same;
    return candidates.length && candidates.length <= 5 ? ` (did you mean ${candidates.join(" or ")}?)` : "";
  };

  return {
    root: files.root,
    files,
    locate,
    async fingerprint(resolved) {
      const { anchor, file } = resolved;
      if (file === undefined || resolved.status !== "resolved" || resolved.repo !== undefined) return undefined;
      const facts = await files.facts(file);
      if ("error" in facts) return undefined;
      if (anchor.symbol !== undefined && resolved.definition) {
        const d = resolved.definition;
        return { path: file, symbol: anchor.symbol, start: d.start, end: d.end, hash: hashLines(facts.lines, d.start, d.end) };
      }
      if (anchor.startLine === undefined || anchor.symbol !== undefined) return undefined;
      const cited = { start: anchor.startLine, end: anchor.endLine ?? anchor.startLine };
      const at = resolved.range ?? cited;
      if (at.end > facts.lineCount) return undefined;
      // Keyed by the cited lines (how the anchor is written), hashing what is there now.
      return { path: file, start: cited.start, end: cited.end, hash: hashLines(facts.lines, at.start, at.end) };
    },
  };
}

/** A file inside a renamed directory: `old/dir/x.ts` → `new/dir/x.ts` when the directory moved as a whole. */
function dirOfFile(map: Renames, file: string): { from: string; to: string; commit: string; date: string } | undefined {
  const parts = file.split("/");
  for (let n = parts.length - 1; n >= 1; n--) {
    const dir = parts.slice(0, n).join("/");
    const moved = map.followDir(dir);
    if (moved) return { ...moved, from: file, to: `${moved.to}/${parts.slice(n).join("/")}` };
  }
  return undefined;
}

function changed(file: string, range: LineRange, context: LocateContext): AnchorProblem {
  const since = context.lastConfirmed ? ` (${context.lastConfirmed})` : "";
  const confirm = context.entryId ? `, then \`cairn confirm ${context.entryId}\`` : "";
  return {
    rule: "anchor-changed",
    severity: "warning",
    message: `the anchored lines ${range.start}-${range.end} of ${file} changed since the entry was last confirmed${since}; re-check the finding against the code${confirm}`,
    short: `the anchored lines ${range.start}-${range.end} changed since the last confirmation`,
  };
}

function pastEnd(file: string, cited: LineRange, n: number): AnchorProblem {
  return problem("anchor-unresolved", `line ${cited.end} is past the end of ${file}, which has ${n} line${n === 1 ? "" : "s"}; expected a range within 1-${n}`, `line ${cited.end} is past the end of ${file}`);
}

function problem(rule: AnchorProblem["rule"], message: string, short: string): AnchorProblem {
  return { rule, severity: rule === "anchor-unresolved" || rule === "anchor-outside-repo" ? "error" : "warning", message, short };
}

/** Candidates narrowed to those with the word before the anchor as a directory (`executing-plans SKILL.md`). */
function narrow(candidates: string[], qualifier: string | undefined): string[] {
  if (candidates.length < 2 || qualifier === undefined) return candidates;
  const word = qualifier.toLowerCase();
  const hits = candidates.filter((c) => c.toLowerCase().split("/").slice(0, -1).includes(word));
  return hits.length ? hits : candidates;
}

function list(files: string[]): string {
  return files.length <= 5 ? files.join(", ") : `${files.slice(0, 5).join(", ")}, …`;
}

/** The configured repository key for `name` (`owner/name` also matches `name`), case-insensitive. */
export function repoKey(repos: Record<string, string>, name: string): string | undefined {
  const keys = Object.keys(repos);
  const lower = name.toLowerCase();
  const short = lower.slice(lower.lastIndexOf("/") + 1);
  return keys.find((k) => k.toLowerCase() === lower) ?? keys.find((k) => k.toLowerCase() === short);
}

/** Normalise to a repo-relative POSIX path, or say why it leaves the repository. */
export function repoRelative(raw: string): { path: string } | { outside: string } {
  if (path.posix.isAbsolute(raw) || path.win32.isAbsolute(raw) || raw.startsWith("~")) {
    return { outside: `${raw} is an absolute path, which points outside the repository` };
  }
  const normal = path.posix.normalize(raw.replace(/\\/g, "/"));
  if (normal === ".." || normal.startsWith("../")) return { outside: `${raw} leaves the repository through \`..\`` };
  return { path: normal.replace(/\/+$/, "") || "." };
}

/** `files` reporting every fact read to `onAccess` (memoised reads are reported too: each caller depends on them). */
function tracked(files: RepoFiles, onAccess: LocatorOptions["onAccess"]): RepoFiles {
  if (!onAccess) return files;
  const file = (path: string) => onAccess({ kind: "file", path });
  const listing = () => onAccess({ kind: "listing" });
  return {
    root: files.root,
    listing: () => (listing(), files.listing()),
    target: (rel) => (file(rel), files.target(rel)),
    facts: (rel) => (file(rel), files.facts(rel)),
    hasWord: (rel, word) => (file(rel), files.hasWord(rel, word)),
    definitions: (rel) => (file(rel), files.definitions(rel)),
    // A glob without `**` depends only on the files directly in its base directory: that directory's mtime says when they change.
    glob: (pattern) => (globBase(pattern) === undefined ? listing() : onAccess({ kind: "dir", path: globBase(pattern)! }), files.glob(pattern)),
    under: (dir) => (listing(), files.under(dir)),
    byBasename: (name) => (listing(), files.byBasename(name)),
  };
}

/** The directory a glob lists, when it lists only one (no `**`, no glob characters in a directory); else undefined. */
function globBase(pattern: string): string | undefined {
  if (pattern.includes("**")) return undefined;
  const slash = pattern.lastIndexOf("/");
  const dir = slash === -1 ? "." : pattern.slice(0, slash);
  return /[*?[\]{}()!]/.test(dir) ? undefined : dir;
}
