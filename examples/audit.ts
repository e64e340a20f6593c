/** Audits of a simulation's outcome from its raw artefacts: the ledger (injection cap) and git history (diff sizes). */
import type { LedgerEvent } from "../src/index.js";
import { git } from "./scenario.js";

export type CapAudit = {
  /** Largest number of distinct entries one agent received in one run. */
  max: number;
  /** (run, agent) pairs that received more than `cap`. */
  violations: Array<{ run: string; agent: string; count: number }>;
  /** (run, agent) pairs that received exactly `cap` (the cap was binding). */
  atCap: number;
};

/** Distinct entries per agent per run, from the `injected` events, against `cap`. */
export function auditInjectionCap(events: readonly LedgerEvent[], cap: number): CapAudit {
  const byPair = new Map<string, Set<string>>();
  for (const event of events) {
    if (event.type !== "injected") continue;
    const key = `${event.run}\u0000${event.agent}`;
    const set = byPair.get(key) ?? new Set<string>();
    for (const id of event.entries) set.add(id);
    byPair.set(key, set);
  }
  const audit: CapAudit = { max: 0, violations: [], atCap: 0 };
  for (const [key, set] of byPair) {
    const [run = "", agent = ""] = key.split("\u0000");
    audit.max = Math.max(audit.max, set.size);
    if (set.size > cap) audit.violations.push({ run, agent, count: set.size });
    if (set.size === cap) audit.atCap++;
  }
  return audit;
}

export type FileChange = {
  commit: string;
  subject: string;
  /** A added, M modified, R renamed/moved, D deleted. */
  status: "A" | "M" | "R" | "D";
  path: string;
  added: number;
  deleted: number;
  kind: "entry" | "ledger" | "other";
};

export type DiffAudit = {
  changes: FileChange[];
  /** Entry modifications larger than `maxLines` changed lines, ledger lines removed, entries deleted. */
  violations: Array<FileChange & { problem: string }>;
};

/**
 * Every commit after the first, file by file (`git show -M --name-status` + `--numstat`). An entry edit in
 * place must change at most `maxLines` lines (max of added and deleted); moves (archive/restore) at most
 * `maxMoveLines`; the ledger is append-only (no deleted lines); entries are never deleted.
 */
export function auditGitDiffs(root: string, options: { maxLines?: number; maxMoveLines?: number } = {}): DiffAudit {
  const maxLines = options.maxLines ?? 2;
  const maxMoveLines = options.maxMoveLines ?? 4;
  const commits = git(root, ["log", "--reverse", "--format=%H%x09%s"]).trim().split("\n").slice(1);
  const audit: DiffAudit = { changes: [], violations: [] };
  for (const line of commits) {
    const [commit = "", subject = ""] = line.split("\t");
    const statuses = lines(git(root, ["show", "--format=", "-M", "--name-status", commit]));
    const numstat = lines(git(root, ["show", "--format=", "-M", "--numstat", commit]));
    statuses.forEach((entry, i) => {
      const parts = entry.split("\t");
      const status = (parts[0] ?? "M").charAt(0) as FileChange["status"];
      const file = parts[parts.length - 1] ?? "";
      const [added = "0", deleted = "0"] = (numstat[i] ?? "").split("\t");
      const kind: FileChange["kind"] = /\/\.ledger\/[^/]+\.jsonl$/.test(file) ? "ledger" : /^knowledge\/(archive\/)?[^/]+\.md$/.test(file) ? "entry" : "other";
      const change: FileChange = { commit: commit.slice(0, 10), subject, status, path: file, added: Number(added), deleted: Number(deleted), kind };
      audit.changes.push(change);
      const changed = Math.max(change.added, change.deleted);
      const problem =
        kind === "ledger" && change.deleted > 0
          ? "ledger lines removed (the ledger is append-only)"
          : kind === "entry" && status === "D"
            ? "entry deleted (decay archives, never deletes)"
            : kind === "entry" && status === "M" && changed > maxLines
              ? `${changed} lines changed in place (> ${maxLines})`
              : kind === "entry" && status === "R" && changed > maxMoveLines
                ? `${changed} lines changed in a move (> ${maxMoveLines})`
                : undefined;
      if (problem) audit.violations.push({ ...change, problem });
    });
  }
  return audit;
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim());
}
