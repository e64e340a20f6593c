/**
 * Compounding (lifecycle rule 5, as amended): converging, durable findings of a run become entries.
 * An agent counts only when it was not primed — when the candidate matches no entry injected into
 * it in that run above the threshold, and every entry injected into it can still be compared
 * (provenance.ts `primingOf`). A candidate that duplicates an active entry (by meaning or by
 * a shared evidence anchor) or an earlier candidate of the batch is refused; one that matches an
 * archived entry restores it instead. A candidate already compounded in this run is skipped.
 */
import type { CairnConfig } from "../config.js";
import { agentKey } from "../entry/agent-name.js";
import { anchorLabel, sharedAnchor } from "../entry/anchor-overlap.js";
import { parseAnchors } from "../entry/anchors.js";
import type { Anchor, EntryCard } from "../entry/types.js";
import { refsOf } from "../check/references.js";
import { SANITIZE_RULES } from "../check/sanitize/rules.js";
import { slugify } from "../entry/render.js";
import type { LedgerSource, RunRef } from "../ledger/index.js";
import { injectionsForRun, ledgerState } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { planNewEntry, type NewEntryPlan } from "./create.js";
import { anchorIndex, withSharedAnchors, type Match } from "./match.js";
import { findingHash, primingOf, unscoredWarning } from "./provenance.js";

/** A compound finding as validated (lifecycle/inputs.ts): `evidence` and `verify` as lists, `durable` defaulted to false. */
export type CompoundCandidate = {
  text: string;
  agents: string[];
  evidence: string[];
  verify: string[];
  durable: boolean;
  title?: string;
  tags?: string[];
};

const SANITIZE_RULE_IDS: ReadonlySet<string> = new Set(SANITIZE_RULES.map((r) => r.id));

export type CompoundStep =
  | { kind: "create"; finding: CompoundCandidate; plan: Extract<NewEntryPlan, { ok: true }>; agents: string[] }
  | { kind: "restore"; finding: CompoundCandidate; entry: EntryCard; agents: string[]; score: number }
  /** The entry file of this very candidate exists but its `compounded` event does not: an interrupted earlier call; only the event is written. */
  | { kind: "resume"; finding: CompoundCandidate; entry: EntryCard; agents: string[] }
  | { kind: "skip"; finding: CompoundCandidate; reason: string };

export type CompoundContext = {
  layout: Layout;
  config: CairnConfig;
  today: string;
  run: RunRef;
  byId: Map<string, EntryCard>;
  /** The ledger, as its events or (faster) its folded state. */
  events: LedgerSource;
  /** The finding text of an entry, read from its file (only for entries created today that a candidate duplicates). */
  findingOf: (entry: EntryCard) => Promise<string | undefined>;
  /** Candidates scored against a text (active and archived), best first; `ids` restricts the scoring to those entries. */
  score: (text: string, ids?: ReadonlySet<string>) => Promise<Match[]>;
};

export type CompoundPlan = {
  steps: CompoundStep[];
  /** Agents primed by injected entries that are gone (provenance.ts `primingOf`), once per agent. */
  warnings: string[];
};

export async function planCompound(ctx: CompoundContext, findings: CompoundCandidate[]): Promise<CompoundPlan> {
  const steps: CompoundStep[] = [];
  const warnings = new Map<string, string>();
  const slugs = new Set<string>();
  // findingHash → entry of the candidates already compounded (created or restored) in this run.
  const done = ledgerState(ctx.events).compoundedFindings(ctx.run);
  const accepted: Array<{ text: string; anchors: Anchor[] }> = [];
  const threshold = ctx.config.matchThreshold;
  const near = anchorIndex(ctx.byId.values());
  for (const finding of findings) {
    const skip = (reason: string) => steps.push({ kind: "skip", finding, reason });
    const earlier = done.get(findingHash(finding.text));
    if (earlier !== undefined) {
      skip(`already compounded in run ${ctx.run.run} (entry "${earlier}"); counted once`);
      continue;
    }
    if (!finding.durable) {
      skip("not judged durable by the orchestrator");
      continue;
    }
    if (!finding.evidence.some((e) => e.trim())) {
      skip("no evidence anchors: evidence first");
      continue;
    }
    if (!finding.verify.some((v) => v.trim())) {
      skip("no verification steps");
      continue;
    }
    const agents = uniqueAgents(finding.agents);
    const anchors = parseAnchors(finding.evidence.join("\n"), 1);
    const score = async (ids?: ReadonlySet<string>) => {
      // The query is the text alone here: its own score is the text score the place needs.
      const scored = await ctx.score(finding.text, ids);
      const text = new Map(scored.map((m) => [m.id, m.score]));
      return withSharedAnchors(scored, anchors, near(anchors), (id) => text.get(id));
    };
    const primed = await primedAgents(ctx, score, agents);
    for (const [agent, by] of primed) if (by.unscored.length && !warnings.has(agentKey(agent))) warnings.set(agentKey(agent), unscoredWarning(agent, ctx.run, by.unscored));
    const independent = agents.filter((a) => !primed.has(a));
    if (independent.length < 2) {
      const why = [...primed]
        .map(([agent, by]) =>
          [
            ...(by.entry ? [`${agent} had "${by.entry.id}" injected (similarity ${by.entry.score})`] : []),
            ...(by.unscored.length ? [`${agent} had ${by.unscored.map((id) => `"${id}"`).join(", ")} injected, no longer in the knowledge base`] : []),
          ].join("; "),
        )
        .join("; ");
      skip(`flagged independently by ${independent.length} agent${independent.length === 1 ? "" : "s"}; compounding needs 2+${why ? ` (${why})` : ""}`);
      continue;
    }
    const scored = await score();
    const active = scored.find((m) => m.state === "active" && m.score >= threshold);
    const sameText = async (entry: EntryCard) => (await ctx.findingOf(entry))?.replace(/\s+/g, " ").trim() === finding.text.replace(/\s+/g, " ").trim();
    const dupe = active ? { entry: ctx.byId.get(active.id), why: `similarity ${active.score}` } : anchorDuplicate(ctx.byId, anchors);
    if (dupe?.entry) {
      if (await isInterrupted(dupe.entry, ctx, sameText)) {
        steps.push({ kind: "resume", finding, entry: dupe.entry, agents: independent });
        continue;
      }
      skip(`duplicates active entry "${dupe.entry.id}" (${dupe.why})`);
      continue;
    }
    const archived = scored.find((m) => m.state === "archived" && m.score >= threshold);
    const archivedEntry = archived ? ctx.byId.get(archived.id) : undefined;
    if (archivedEntry && steps.some((s) => s.kind === "restore" && s.entry.id === archivedEntry.id)) {
      skip(`duplicates archived entry "${archivedEntry.id}", which an earlier finding of this run restores`);
      continue;
    }
    const inBatch = accepted.findIndex((a) => sharedAnchor(a.anchors, anchors) !== undefined || overlap(a.text, finding.text) >= threshold);
    if (inBatch >= 0) {
      skip(`duplicates an earlier candidate of this batch ("${truncate(accepted[inBatch]!.text)}")`);
      continue;
    }
    if (archived && archivedEntry) {
      const entry = archivedEntry;
      if (entry.frontmatter.status === "superseded") {
        // superseded is terminal: the pattern lives on in its replacement, which stays the one to confirm.
        const by = refsOf(entry, "supersededBy");
        skip(`matches superseded entry "${entry.id}"${by.length ? ` (superseded by ${by.join(", ")})` : ""}; record the finding against its replacement instead`);
        continue;
      }
      accepted.push({ text: finding.text, anchors });
      steps.push({ kind: "restore", finding, entry, agents: independent, score: archived.score });
      continue;
    }
    let slug = slugify(finding.title ?? finding.text);
    for (let n = 2; slugs.has(slug) || ctx.byId.has(slug); n++) slug = `${slugify(finding.title ?? finding.text).slice(0, 56)}-${n}`;
    const plan = await planNewEntry(ctx.layout, ctx.config, {
      slug,
      finding: finding.text,
      evidence: finding.evidence,
      verify: finding.verify,
      today: ctx.today,
      existing: ctx.byId,
      ...(finding.title ? { title: finding.title } : {}),
      ...(finding.tags ? { tags: finding.tags } : {}),
    });
    if (!plan.ok) {
      const problems = typeof plan.problems === "string" ? plan.problems : plan.problems.map((d) => `${d.rule}: ${d.message}`).slice(0, 3).join("; ");
      const sanitization = typeof plan.problems !== "string" && plan.problems.some((d) => SANITIZE_RULE_IDS.has(d.rule));
      skip(`${sanitization ? "fails sanitization" : "would not be a valid entry"} — ${problems}`);
      continue;
    }
    // Nobody reviews an entry written by compounding before it reaches a prompt: text that instructs the agent is refused, not warned about.
    const injection = plan.warnings.find((d) => d.rule === "prompt-injection");
    if (injection) {
      skip(`fails sanitization — prompt-injection: ${injection.message}`);
      continue;
    }
    slugs.add(slug);
    accepted.push({ text: finding.text, anchors });
    steps.push({ kind: "create", finding, plan, agents: independent });
  }
  return { steps, warnings: [...warnings.values()] };
}

/** Agent names once each by agentKey, in first-seen spelling. */
function uniqueAgents(agents: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const agent of agents) if (!seen.has(agentKey(agent))) seen.set(agentKey(agent), agent.trim());
  return [...seen.values()];
}

/** Agents for which the candidate matches an entry injected into them in this run (the best such entry), or that were shown an entry that is gone (primed, fail closed). */
async function primedAgents(ctx: CompoundContext, score: (ids: ReadonlySet<string>) => Promise<Match[]>, agents: readonly string[]): Promise<Map<string, { entry?: Match; unscored: string[] }>> {
  const out = new Map<string, { entry?: Match; unscored: string[] }>();
  for (const agent of agents) {
    const injected = new Set(injectionsForRun(ctx.events, ctx.run, agent));
    const priming = await primingOf(injected, (id) => ctx.byId.has(id), score, ctx.config.matchThreshold);
    const best = priming.by[0];
    if (best || priming.unscored.length) out.set(agent, { ...(best ? { entry: best } : {}), unscored: priming.unscored });
  }
  return out;
}

/** An active entry sharing an evidence anchor with the candidate. */
function anchorDuplicate(byId: Map<string, EntryCard>, anchors: readonly Anchor[]): { entry: EntryCard; why: string } | undefined {
  if (!anchors.length) return undefined;
  for (const entry of byId.values()) {
    if (entry.state !== "active") continue;
    const shared = sharedAnchor(anchors, entry.anchors);
    if (shared) return { entry, why: `shares evidence anchor ${anchorLabel(shared.b)}` };
  }
  return undefined;
}

/** The candidate's own entry, written by an earlier call of this run that stopped before its `compounded` event. */
async function isInterrupted(entry: EntryCard, ctx: CompoundContext, sameText: (entry: EntryCard) => Promise<boolean>): Promise<boolean> {
  if (entry.frontmatter.created !== ctx.today || !(await sameText(entry))) return false;
  return !ledgerState(ctx.events).names(entry.id);
}

/** Share of the shorter text's words found in the other (a cheap "same meaning" test within one batch, before anything is indexed). */
function overlap(a: string, b: string): number {
  const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []);
  const x = words(a);
  const y = words(b);
  if (!x.size || !y.size) return 0;
  let common = 0;
  for (const w of x) if (y.has(w)) common++;
  return common / Math.min(x.size, y.size);
}

function truncate(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
}
