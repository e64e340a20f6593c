/**
 * An injected entry as the agent reads it (`inject`): its finding, fix, evidence and verification steps on one
 * line each, with the warnings that travel with it — anchor drift, a failed verification, disputed, near decay,
 * and contradictions with the other entries in the same prompt.
 */
import type { CairnConfig } from "../config.js";
import { refsOf } from "../check/references.js";
import type { GateVerdict } from "../check/gate.js";
import { MAX_EVIDENCE_LINES } from "../entry/anchors.js";
import type { Entry } from "../entry/types.js";
import { nearDecayAt } from "../lifecycle/decay.js";
import { verificationWarning, type VerificationState } from "../verify/records.js";
import { oneLine, type ContextEntry } from "./context.js";
import type { SearchResult } from "./search.js";

/** A search result the gate admitted: the entry read from its file, the gate's verdict, its drift warnings, and (once chosen) its context. */
export type Candidate = { hit: SearchResult; entry: Entry; verdict: GateVerdict; drift: string[]; context?: ContextEntry };

/** The entry as the agent sees it, with its own warnings (drift, disputed, near decay); contradictions are added per selection. */
export function toContext(config: CairnConfig, candidate: Candidate, unconfirmedRuns: number, verification: VerificationState | undefined): ContextEntry {
  const { entry, hit } = candidate;
  const fm = entry.frontmatter;
  // Drift travels with the entry ("the cited lines moved to 92-101"); it never filters it out.
  const warnings: string[] = [...candidate.drift];
  const failed = verificationWarning(entry, verification);
  if (failed) warnings.push(oneLine(failed));
  const status = typeof fm.status === "string" ? fm.status : "observed";
  if (status === "disputed") warnings.push("disputed: another review or a human questioned this entry");
  if (unconfirmedRuns >= nearDecayAt(config)) {
    warnings.push(`near decay: injected in ${unconfirmedRuns}/${config.decayAfterRuns} runs without an independent confirmation`);
  }
  return {
    id: entry.id,
    ...(typeof fm.title === "string" ? { title: oneLine(fm.title) } : {}),
    finding: oneLine(entry.finding.text),
    ...(entry.fix ? { fix: oneLine(entry.fix.text) } : {}),
    evidence: entry.evidence.anchors.length ? evidenceLines(entry) : [oneLine(entry.evidence.text)],
    verify: entry.verify.steps.map(oneLine),
    lastConfirmed: str(fm.lastConfirmed) ?? null,
    provenance: str(fm.provenance) ?? null,
    status,
    score: hit.score,
    warnings,
  };
}

/** The chosen entries' contexts with "contradicts injected entry" warnings against each other and earlier calls of the run. */
export function withContradictions(chosen: Candidate[], earlier: Map<string, Entry | undefined>): ContextEntry[] {
  const entries = chosen.map((c) => c.entry);
  const earlierEntries = [...earlier.values()].filter((e): e is Entry => e !== undefined);
  return chosen.map(({ entry, context }) => {
    const others = [...entries.filter((e) => e.id !== entry.id), ...earlierEntries];
    const otherIds = new Set([...others.map((e) => e.id), ...earlier.keys()]);
    const contradicted = new Set([
      ...refsOf(entry, "contradicts").filter((id) => otherIds.has(id)),
      ...others.filter((e) => refsOf(e, "contradicts").includes(entry.id)).map((e) => e.id),
    ]);
    const base = context!;
    return contradicted.size ? { ...base, warnings: [...base.warnings, ...[...contradicted].map((id) => `contradicts injected entry ${id}`)] } : base;
  });
}

/** An anchor as the agent reads it: the anchor and its note (a prose anchor's note already holds the anchor). */
function anchorText(anchor: Entry["evidence"]["anchors"][number]): string {
  const note = anchor.note?.trim();
  return oneLine(!note ? anchor.raw : note.includes(anchor.raw.trim()) ? note : `${anchor.raw} — ${note}`);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The entry's anchors as the agent reads them, at most MAX_EVIDENCE_LINES of them, then how many more there are. */
function evidenceLines(entry: Entry): string[] {
  const anchors = entry.evidence.anchors;
  const lines = distinct(anchors.slice(0, MAX_EVIDENCE_LINES).map(anchorText));
  const more = anchors.length - MAX_EVIDENCE_LINES;
  return more > 0 ? [...lines, `(and ${more} more anchors, not shown)`] : lines;
}

/**
 * Anchors found in one prose paragraph share its text: show it once (drop lines another line already contains, as a
 * whole: `src/a.ts:1` is not in `src/a.ts:12`, and dropping it lost the agent an anchor).
 */
function distinct(lines: string[]): string[] {
  const unique = [...new Set(lines)];
  return unique.filter((line, i) => !unique.some((other, j) => j !== i && other.length > line.length && containsWhole(other, line)));
}

/** True when `part` occurs in `text` not as a piece of a longer path, number or word. */
function containsWhole(text: string, part: string): boolean {
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
    if (!continues(text, at - 1, -1) && !continues(text, at + part.length, 1)) return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}_]/u;

/** Whether the character at `at` carries a token on, away from the match (`step` -1: before it, 1: after it). */
function continues(text: string, at: number, step: -1 | 1): boolean {
  const c = text[at];
  if (c === undefined) return false;
  if (WORD.test(c)) return true;
  // `src/a.ts:1` then `.5` or `:2` or `/x` or `-3`: the same path, line or range, longer.
  const next = text[at + step];
  return ".:/-".includes(c) && next !== undefined && WORD.test(next);
}
