/**
 * Where one revision keeps the layout's directories, read from that revision's own tree. A pull request can move the
 * knowledge directory — `git mv knowledge kb` with `knowledgeDir: "kb"`, `knowledge` replaced by a link to a folder
 * committed earlier, or a link retargeted — and cairn then reads other files than the ones at BASE. So each side of a
 * diff is located as that side's cairn would locate it: its cairn.config.json (a link to it followed inside the tree)
 * and its links (followed inside the tree; one leaving the repository is refused, as every command refuses it).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { CONFIG_FILE, DEFAULT_CONFIG, knowledgeDirOf } from "../config.js";
import { relativePath, type Layout } from "../store/layout.js";
import { entryAt, gitlinks, readBlobs, type Gitlink, type GitRepo, type TreeEntry } from "./git.js";
import { pathspecs, realDirs, type RealDir, type RealDirs } from "./real-dirs.js";

/** The layout's directories at one revision. */
export type SideDirs = {
  /** Where git sees them at this revision, and how this revision's layout names them. */
  real: RealDirs;
  /** Gitlinks (submodules) that are, hold or sit under one of the directories, by top-relative path, with their commits. */
  gitlinks: Gitlink[];
  /** Why this revision's layout could not be read as cairn reads it (a bad config, a link leaving the repository). */
  notes: string[];
};

/** Links followed on one path before giving up (as the kernel's ELOOP). */
const MAX_HOPS = 40;

type Walked =
  | { kind: "found"; top: string; entry: TreeEntry }
  /** Nothing at `top` (or a file where a directory was expected). */
  | { kind: "missing"; top: string }
  /** A gitlink at `link` (pinned to `commit`) on the way to (or at) `top`. */
  | { kind: "gitlink"; top: string; link: string; commit: string }
  /** A link that leaves the repository (or a cycle of links): refused. */
  | { kind: "refused"; why: string };

/**
 * Resolve a top-relative path in commit `rev` one component at a time, following links as the file system would
 * (a `..` after a link steps out of the link's target, not out of the link's folder).
 */
async function walk(repo: GitRepo, rev: string, start: string, lookup: (p: string) => Promise<TreeEntry | undefined>): Promise<Walked> {
  let pending = split(start);
  let done: string[] = [];
  let hops = 0;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      if (!done.length) return { kind: "refused", why: `${start} leads outside the repository through a symbolic link` };
      done.pop();
      continue;
    }
    const here = [...done, part].join("/");
    const entry = await lookup(here);
    if (!entry) return { kind: "missing", top: [here, ...pending].join("/") };
    if (entry.mode === "160000") return { kind: "gitlink", top: [here, ...pending].join("/"), link: here, commit: entry.oid };
    if (entry.mode === "120000") {
      if (++hops > MAX_HOPS) return { kind: "refused", why: `${here} is in a cycle of symbolic links` };
      const target = (await readBlobs(repo, [entry.oid])).get(entry.oid)?.toString("utf8") ?? "";
      if (target === "" || path.posix.isAbsolute(target) || /^[A-Za-z]:[\\/]/.test(target)) {
        return { kind: "refused", why: `${here} is a symbolic link to ${JSON.stringify(target)}, outside the repository` };
      }
      pending = [...done, ...split(target), ...pending];
      done = [];
      continue;
    }
    if (!pending.length) return { kind: "found", top: here, entry };
    if (entry.type !== "tree") return { kind: "missing", top: [here, ...pending].join("/") };
    done.push(part);
  }
  return { kind: "found", top: done.join("/"), entry: { mode: "040000", type: "tree", oid: rev } };
}

function split(p: string): string[] {
  return p.split("/").filter(Boolean);
}

/**
 * The layout's directories in commit `rev`. `knowledgeDir` pins the knowledge dir (a caller's own configuration,
 * e.g. a library override); otherwise it is what `rev`'s cairn.config.json says.
 */
export async function dirsAt(repo: GitRepo, rev: string, label: string, knowledgeDir?: string): Promise<SideDirs> {
  const seen = new Map<string, Promise<TreeEntry | undefined>>();
  const lookup = (p: string) => {
    let found = seen.get(p);
    if (!found) seen.set(p, (found = entryAt(repo, rev, p)));
    return found;
  };
  const notes: string[] = [];
  const links = new Map<string, string>();
  let dir = knowledgeDir ?? DEFAULT_CONFIG.knowledgeDir;
  if (knowledgeDir === undefined) {
    const read = knowledgeDirOf(await configText(repo, rev, label, lookup, notes));
    if ("problem" in read) notes.push(`at ${label}, ${read.problem}: cairn refuses to run with it; the diff takes the default knowledge directory there`);
    else dir = read.value;
  }
  const shown = path.posix.normalize(dir.replace(/\\/g, "/")).replace(/\/+$/, "").replace(/^\.$/, "");
  const literal = `${repo.prefix}${shown}`.replace(/\/+$/, "");
  const walked = await walk(repo, rev, literal, lookup);
  if (walked.kind === "refused") notes.push(`at ${label}, ${walked.why}: cairn refuses to read the knowledge directory through it, so it holds no entries there`);
  if (walked.kind === "gitlink") links.set(walked.link, walked.commit);
  const knowledge: RealDir = { top: walked.kind === "refused" ? literal : walked.top, shown };
  const child = async (name: string): Promise<RealDir> => {
    const top = knowledge.top ? `${knowledge.top}/${name}` : name;
    const shownChild = shown ? `${shown}/${name}` : name;
    if (walked.kind !== "found") return { top, shown: shownChild };
    const inner = await walk(repo, rev, top, lookup);
    if (inner.kind === "refused") notes.push(`at ${label}, ${inner.why}: cairn refuses to read ${shownChild} through it, so it holds nothing there`);
    if (inner.kind === "gitlink") links.set(inner.link, inner.commit);
    return { top: inner.kind === "refused" ? top : inner.top, shown: shownChild };
  };
  const archive = await child("archive");
  const ledger = await child(".ledger");
  const real: RealDirs = { dirs: [archive, ledger, knowledge].sort((a, b) => b.top.length - a.top.length), knowledge, archive, ledger };
  for (const link of await gitlinks(repo, rev, pathspecs(real))) links.set(link.path, link.commit);
  return { real, gitlinks: [...links].map(([p, commit]) => ({ path: p, commit })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), notes };
}

/** The layout's directories in the working tree, as `layout` (the loaded configuration) names them. */
export async function dirsInWorkTree(repo: GitRepo, layout: Layout): Promise<SideDirs> {
  const real = await realDirs(repo, layout);
  // A gitlink in the index at a directory, under one, or on the way to one (vendor/kb holding kb/knowledge).
  const ancestors = real.dirs.flatMap((d) => split(d.top).slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/")));
  const specs = pathspecs(real);
  const found = await gitlinks(repo, undefined, [...new Set([...specs, ...ancestors])]);
  const links = found.filter(({ path: link }) => specs.some((s) => s === "." || link === s || link.startsWith(`${s}/`)) || ancestors.includes(link));
  return { real, gitlinks: [...new Map(links.map((l) => [l.path, l])).values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), notes: [] };
}

/**
 * The knowledge dir `layout` names, when the caller chose it rather than the working tree's cairn.config.json (a
 * library `config` override): it then holds at every revision. Undefined when the config file decides.
 */
export async function pinnedKnowledgeDir(layout: Layout): Promise<string | undefined> {
  const text = await readFile(path.join(layout.root, CONFIG_FILE), "utf8").catch(() => undefined);
  const fromFile = knowledgeDirOf(text);
  const chosen = relativePath(layout, layout.knowledge);
  if ("value" in fromFile && relativePath(layout, path.join(layout.root, fromFile.value)) === chosen) return undefined;
  return chosen;
}

/** True when the two revisions keep the knowledge dir, its archive and its ledger in the same places. */
export function sameDirs(a: RealDirs, b: RealDirs): boolean {
  return a.knowledge.top === b.knowledge.top && a.archive.top === b.archive.top && a.ledger.top === b.ledger.top;
}

/** The text of `rev`'s cairn.config.json (through links inside the tree), or undefined when it has none. */
async function configText(repo: GitRepo, rev: string, label: string, lookup: (p: string) => Promise<TreeEntry | undefined>, notes: string[]): Promise<string | undefined> {
  const walked = await walk(repo, rev, `${repo.prefix}${CONFIG_FILE}`, lookup);
  if (walked.kind === "missing") return undefined;
  if (walked.kind === "found" && (walked.entry.mode === "100644" || walked.entry.mode === "100755")) {
    const blob = (await readBlobs(repo, [walked.entry.oid])).get(walked.entry.oid);
    if (blob) return blob.toString("utf8");
  }
  const why = walked.kind === "refused" ? walked.why : `${CONFIG_FILE} is ${walked.kind === "gitlink" ? "inside a submodule" : "not a regular file"}`;
  notes.push(`at ${label}, ${why}: cairn refuses to run with that ${CONFIG_FILE}; the diff takes the default knowledge directory there`);
  return undefined;
}
