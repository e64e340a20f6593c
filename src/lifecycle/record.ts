/**
 * `record` (lifecycle rules 1–2, as amended): match each finding to at most one entry, active or
 * archived, and decide its provenance. A finding is **primed** when it matches any entry injected
 * into that agent in that run above the threshold, or when an entry injected into it is gone and
 * cannot be compared (fail closed: provenance.ts `primingOf`); an independent match of an archived entry
 * restores it (the pattern recurred). A finding already recorded for (run, agent) — against the entry
 * it cites, when it cites one — is not counted again. planRecord is pure over its inputs; applyRecord performs the plan (record-apply.ts).
 */
import { agentKey } from "../entry/agent-name.js";
import type { EntryCard, Provenance } from "../entry/types.js";
import type { LedgerSource, RunRef } from "../ledger/index.js";
import { injectionsForRun, ledgerState } from "../ledger/index.js";
import { refsOf } from "../check/references.js";
import { parseAnchors } from "../entry/anchors.js";
import { anchorIndex, atSamePlace, withSharedAnchors, type Match } from "./match.js";
import { findingHash, primingOf, unscoredWarning } from "./provenance.js";
import { closest as suggest } from "../text/suggest.js";
import type { AlreadyRecorded, Confirmation, Finding, Unmatched } from "../types/review.js";

export type { AlreadyRecorded, Confirmation, Finding, Unmatched } from "../types/review.js";

export type RecordPlan = {
  confirmations: Confirmation[];
  unmatched: Unmatched[];
  alreadyRecorded: AlreadyRecorded[];
  /** Active entries whose lastConfirmed/provenance are edited (independent confirmations). */
  edits: Array<{ id: string; path: string }>;
  /** Archived entries an independent finding restores. */
  restores: Array<{ id: string; path: string; agent: string }>;
  /** Agents primed by injected entries that are gone (provenance.ts `primingOf`), once per agent. */
  warnings: string[];
};

/** Every candidate scored against the finding (its text and evidence), active and archived, best first; `ids` restricts the scoring to those entries. Shared anchors are weighed by planRecord. */
export type Scorer = (finding: Finding, ids?: ReadonlySet<string>) => Promise<Match[]>;

/**
 * `events`: the ledger, as its events or (faster) its folded state. `scoreText`: entries scored against a finding's
 * text alone (only those that share a place with it: is there a text match for the place to strengthen?).
 */
export type RecordContext = { run: RunRef; byId: Map<string, EntryCard>; events: LedgerSource; threshold: number; score: Scorer; scoreText: (text: string, ids: ReadonlySet<string>) => Promise<Match[]> };

export async function planRecord(ctx: RecordContext, findings: Finding[]): Promise<RecordPlan> {
  const plan: RecordPlan = { confirmations: [], unmatched: [], alreadyRecorded: [], edits: [], restores: [], warnings: [] };
  const warned = new Set<string>();
  // (agentKey, findingHash) → entry of every finding already recorded in the run; a finding that cites an entry is
  // keyed by (agentKey, findingHash, entry) too, so one text citing two entries confirms both, and a retry neither.
  const state = ledgerState(ctx.events);
  const recorded = state.recordedFindings(ctx.run);
  const cited = state.recordedCitations(ctx.run);
  const near = anchorIndex(ctx.byId.values());
  for (const [index, finding] of findings.entries()) {
    const hash = findingHash(finding.text);
    const key = `${agentKey(finding.agent)}\u0000${hash}`;
    const citation = finding.entry !== undefined ? `${key}\u0000${finding.entry}` : undefined;
    const earlier = citation !== undefined ? (cited.has(citation) ? finding.entry : undefined) : recorded.get(key);
    if (earlier !== undefined) {
      plan.alreadyRecorded.push({ index, agent: finding.agent, text: finding.text, ...(earlier ? { entry: earlier } : {}) });
      continue;
    }
    const unmatched = (reason: string, extra: Partial<Unmatched> = {}) => plan.unmatched.push({ index, agent: finding.agent, text: finding.text, reason, ...extra });
    const anchors = parseAnchors([finding.evidence ?? []].flat().join("\n"), 1);
    const textAlone = new Map<string, number>();
    const score = async (ids?: ReadonlySet<string>) => {
      const scored = await ctx.score(finding, ids);
      const returned = new Set(scored.map((m) => m.id));
      const unscored = atSamePlace(anchors, near(anchors), ids).filter((e) => returned.has(e.id) && !textAlone.has(e.id));
      if (unscored.length) {
        for (const e of unscored) textAlone.set(e.id, 0); // not returned: no word in common
        for (const m of await ctx.scoreText(finding.text, new Set(unscored.map((e) => e.id)))) textAlone.set(m.id, m.score);
      }
      return withSharedAnchors(scored, anchors, near(anchors), (id) => textAlone.get(id));
    };
    const injected = new Set(injectionsForRun(ctx.events, ctx.run, finding.agent));
    const priming = await primingOf(injected, (id) => ctx.byId.has(id), score, ctx.threshold);
    const primedBy = priming.by.map((m) => ({ entry: m.id, score: m.score }));

    let match: Match | undefined;
    const explicit = finding.entry !== undefined;
    if (explicit) {
      const entry = ctx.byId.get(finding.entry!);
      if (!entry) {
        const suggestions = suggest(finding.entry!, ctx.byId.keys());
        unmatched(`cites unknown entry "${finding.entry}"${suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?` : ""}`, suggestions.length ? { suggestions } : {});
        continue;
      }
      match = { id: entry.id, score: 1, state: entry.state };
    } else {
      const scored = await score();
      const best = scored[0];
      if (!best || best.score < ctx.threshold) {
        unmatched("no entry above the match threshold", best ? { best: { entry: best.id, score: best.score } } : {});
        continue;
      }
      match = best;
    }
    const entry = ctx.byId.get(match.id);
    if (!entry) {
      unmatched(`matches "${match.id}", which is no longer on disk`);
      continue;
    }
    const provenance: Provenance = primedBy.length > 0 || priming.unscored.length > 0 || injected.has(entry.id) ? "primed" : "independent";
    if (priming.unscored.length && !warned.has(agentKey(finding.agent))) {
      warned.add(agentKey(finding.agent));
      plan.warnings.push(unscoredWarning(finding.agent, ctx.run, priming.unscored));
    }
    let state: Confirmation["state"] = entry.state;
    if (entry.state === "archived" && provenance === "independent") {
      if (entry.frontmatter.status === "superseded") {
        const by = refsOf(entry, "supersededBy");
        unmatched(`matches superseded entry "${entry.id}"${by.length ? ` (superseded by ${by.join(", ")})` : ""}; record the finding against its replacement`, { best: { entry: entry.id, score: match.score } });
        continue;
      }
      state = "restored";
      if (!plan.restores.some((r) => r.id === entry.id)) plan.restores.push({ id: entry.id, path: entry.path, agent: finding.agent });
    }
    recorded.set(key, entry.id);
    cited.add(`${key}\u0000${entry.id}`);
    plan.confirmations.push({
      index,
      entry: entry.id,
      agent: finding.agent,
      provenance,
      score: match.score,
      finding: finding.text,
      explicit,
      state,
      ...(primedBy.length ? { primedBy } : {}),
      ...(priming.unscored.length ? { primedByMissing: priming.unscored } : {}),
    });
    if (provenance === "independent" && entry.state === "active" && !plan.edits.some((e) => e.id === entry.id)) plan.edits.push({ id: entry.id, path: entry.path });
  }
  return plan;
}
