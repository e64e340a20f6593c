/**
 * What a change does to the layout itself, beside its entries: a knowledge directory (or its archive, its ledger)
 * kept somewhere else at HEAD than at BASE, and submodules, inside which cairn cannot see. Pure.
 */
import { diagnostic, type Diagnostic } from "../entry/diagnostic.js";
import type { RealDir, RealDirs } from "./real-dirs.js";
import type { SideDirs } from "./side-dirs.js";
import type { MovedDir } from "./types.js";

export type LayoutChange = { moved: MovedDir[]; problems: Diagnostic[]; warnings: string[] };

type Side = { dirs: SideDirs; label: string };

const NAMES: Record<MovedDir["dir"], string> = { knowledge: "the knowledge directory", archive: "the archive", ledger: "the ledger" };

/** `prefix`: the project root relative to the git top level (`GitRepo.prefix`), to name places as the layout does. */
export function layoutChange(base: Side, head: Side, prefix: string): LayoutChange {
  const shown = (top: string) => (top === prefix.replace(/\/$/, "") ? "." : top.startsWith(prefix) ? top.slice(prefix.length) : `/${top}`);
  const moved: MovedDir[] = [];
  const problems: Diagnostic[] = [];
  const b = base.dirs.real;
  const h = head.dirs.real;
  const knowledgeMoved = b.knowledge.top !== h.knowledge.top;
  // The archive and the ledger move with the knowledge dir they sit in; said apart only when one went its own way.
  const inPlace = (real: RealDirs, dir: RealDir, name: string) => dir.top === (real.knowledge.top ? `${real.knowledge.top}/${name}` : name);
  for (const [dir, name] of [["knowledge", ""], ["archive", "archive"], ["ledger", ".ledger"]] as const) {
    const from = b[dir];
    const to = h[dir];
    if (from.top === to.top) continue;
    if (dir !== "knowledge" && knowledgeMoved && inPlace(b, from, name) && inPlace(h, to, name)) continue;
    const item: MovedDir = { dir, from: shown(from.top), to: shown(to.top) };
    if (from.shown !== item.from) item.fromVia = from.shown || ".";
    if (to.shown !== item.to) item.toVia = to.shown || ".";
    moved.push(item);
    problems.push(
      diagnostic(
        to.shown || ".",
        "knowledge-dir-moved",
        "warning",
        `${NAMES[dir]} moved between ${base.label} and ${head.label}: ${places(item)}. cairn now reads it from ${item.to}, and each file at ${base.label} is compared with the file at the same place there, so the entry changes listed are what agents will be told differently; review the move itself too (knowledgeDir in cairn.config.json, or a symbolic link)`,
      ),
    );
  }
  const sides = new Map<string, { labels: string[]; commits: string[]; knowledge: string }>();
  for (const side of [base, head]) {
    for (const link of side.dirs.gitlinks) {
      const seen = sides.get(link.path);
      sides.set(link.path, { labels: [...(seen?.labels ?? []), side.label], commits: [...(seen?.commits ?? []), link.commit], knowledge: side.dirs.real.knowledge.top });
    }
  }
  for (const [link, { labels, commits, knowledge }] of sides) {
    const role = link === knowledge ? "as the knowledge directory" : knowledge.startsWith(`${link}/`) || link === "" ? "holding the knowledge directory" : "inside the knowledge directory";
    const what = `${shown(link)} is a git submodule (a gitlink, mode 160000) at ${labels.join(" and ")}, ${role}: cairn cannot see inside a submodule`;
    // Pinned to the same commit on both sides, it tells agents nothing new here: a warning, not a failed check on every pull request.
    const unchanged = commits.length === 2 && commits[0] === commits[1];
    problems.push(
      unchanged
        ? diagnostic(shown(link), "knowledge-dir-submodule", "warning", `${what}; it is pinned to the same commit (${commits[0]!.slice(0, 12)}) at both, so this change does not change its entries — the pull request that moves it will fail. Keep the knowledge directory's files in this repository`)
        : diagnostic(
            shown(link),
            "knowledge-dir-submodule",
            "error",
            `${what}; its entries are not reviewed here — a new submodule commit changes what agents are told with no entry change in this diff. Keep the knowledge directory's files in this repository`,
          ),
    );
  }
  return { moved, problems, warnings: [...base.dirs.notes, ...head.dirs.notes] };
}

/** "knowledge → docs/notes (reached as knowledge)". */
function places(item: MovedDir): string {
  const via = (where: string, name: string | undefined) => (name === undefined ? where : `${where} (reached as ${name})`);
  return `${via(item.from, item.fromVia)} → ${via(item.to, item.toVia)}`;
}
