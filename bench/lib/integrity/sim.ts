/**
 * One integrity simulation: a real git repository, real entry files and ledger, the library API.
 * Each run changes some code; every agent gets its Knowledge Context (`inject`), re-flags what it
 * was shown with probability q (primed, half of the time in other words), finds live patterns in
 * changed code it was not shown with probability p (its finders only), and the orchestrator records
 * the findings and compounds those two or more agents flagged. Every random draw is a hash of
 * (seed, run, agent, pattern, purpose), so holdout or the clock never shift another draw.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git } from "../../../examples/scenario.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../../src/index.js";
import type { CompoundFinding } from "../../../src/index.js";
import { AGENTS, anchorOf, buildWorld, entryFile, type Agent, type Pattern, type PatternKind, type World } from "./world.js";

export type SimConfig = {
  seed: number;
  /** Probability that an agent not shown a live pattern finds it (its finders only). */
  p: number;
  /** Probability that an agent shown an entry re-flags it. */
  q: number;
  runsPerDay: number;
  holdout: "off" | number;
  /** Runs. Default 40. */
  runs?: number;
  /** decayAfterRuns. Default 10. */
  decayAfterRuns?: number;
  /** Pattern mix. Default the issue's. */
  counts?: Partial<Record<PatternKind, number>>;
};

/** What a finding was, by construction, and what record made of it. */
export type FindingTrace = {
  agent: Agent;
  pattern: string;
  /** `primed`: a re-flag of an entry the agent was shown; `independent`: found without being shown it. */
  truth: "primed" | "independent";
  paraphrased: boolean;
  /** The pattern had an entry (active or archived) when the finding was made. */
  hadEntry: boolean;
  recorded?: { entry: string; provenance: "independent" | "primed"; state: string } | "unmatched" | "already";
};

export type RunTrace = {
  run: number;
  relevant: string[];
  /** Pattern ids shown to each agent (via any of its entries), and withheld from it. */
  shown: Record<Agent, string[]>;
  findings: FindingTrace[];
  archived: string[];
  restored: string[];
  created: Array<{ entry: string; pattern: string; duplicate: boolean }>;
};

export type SimOutcome = {
  config: SimConfig;
  world: World;
  runs: RunTrace[];
  /** Final state of each pattern's entries (a pattern may have several, when duplicates were created). */
  entries: Array<{ id: string; pattern: string; state: "active" | "archived" }>;
  kb: KnowledgeBase;
  ms: number;
};

const START = Date.parse("2026-01-05T00:00:00.000Z");

/** A number in [0, 1) from the hash of `parts`. */
export function draw(...parts: Array<string | number>): number {
  const digest = createHash("sha1").update(parts.join("\u0000")).digest();
  return digest.readUInt32LE(0) / 2 ** 32;
}

/** The clock of run `run` (1-based): `runsPerDay` runs spread over each UTC day. */
export function runTime(run: number, runsPerDay: number): number {
  const day = Math.floor((run - 1) / runsPerDay);
  const slot = (run - 1) % runsPerDay;
  return START + day * 86_400_000 + 3_600_000 + slot * Math.floor((20 * 3_600_000) / runsPerDay);
}

export async function simulate(root: string, config: SimConfig): Promise<SimOutcome> {
  const started = performance.now();
  const runs = config.runs ?? 40;
  const world = buildWorld({ seed: config.seed, runs, ...(config.counts ? { counts: config.counts } : {}) });
  let now = START;
  const kb = await openKnowledgeBase({
    root,
    now: () => new Date(now),
    embedder: null,
    actor: "integrity simulation",
    config: { holdout: config.holdout, decayAfterRuns: config.decayAfterRuns ?? 10 },
  });
  await setUp(root, kb, world);
  const patternOf = new Map(world.patterns.filter((p) => p.initial !== "none").map((p) => [p.id, p.id]));
  const byId = new Map(world.patterns.map((p) => [p.id, p]));
  const traces: RunTrace[] = [];
  for (let run = 1; run <= runs; run++) {
    now = runTime(run, config.runsPerDay);
    traces.push(await review(kb, root, world, config, run, patternOf, byId, (ms) => (now += ms)));
  }
  const status = await kb.status({ all: true });
  const entries = status.entries.map((e) => ({ id: e.id, pattern: patternOf.get(e.id) ?? "?", state: e.state }));
  return { config, world, runs: traces, entries, kb, ms: performance.now() - started };
}

async function setUp(root: string, kb: KnowledgeBase, world: World): Promise<void> {
  for (const [rel, text] of Object.entries(world.sources)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  await kb.init();
  const confirmed = new Date(START - 3 * 86_400_000).toISOString().slice(0, 10);
  for (const pattern of world.patterns) {
    if (pattern.initial === "active") await writeFile(path.join(kb.layout.knowledge, `${pattern.id}.md`), entryFile(pattern, confirmed));
    if (pattern.initial === "archived") await writeFile(path.join(kb.layout.archive, `${pattern.id}.md`), entryFile(pattern, confirmed, confirmed));
  }
  git(root, ["init", "-q", "-b", "main"], new Date(START));
  git(root, ["add", "-A"], new Date(START));
  git(root, ["commit", "-q", "-m", "initial knowledge"], new Date(START));
}

const live = (pattern: Pattern, run: number) => run >= pattern.liveFrom && run <= pattern.liveTo;

async function review(
  kb: KnowledgeBase,
  root: string,
  world: World,
  config: SimConfig,
  run: number,
  patternOf: Map<string, string>,
  byId: Map<string, Pattern>,
  tick: (ms: number) => void,
): Promise<RunTrace> {
  const runId = `run-${String(run).padStart(2, "0")}`;
  const seed = config.seed;
  const relevant = world.patterns.filter((p) => draw(seed, run, p.id, "relevant") < p.relevance);
  const changedFiles = relevant.map((p) => p.file).sort();
  const shown = {} as Record<Agent, string[]>;
  for (const agent of AGENTS) {
    const result = await kb.inject({ run: runId, agent, summary: `This change touches ${changedFiles.join(", ")}.`, changedFiles });
    shown[agent] = [...new Set(result.entries.map((e) => patternOf.get(e.id) ?? e.id))];
    tick(1_000);
  }

  // What the agents report.
  const findings: FindingTrace[] = [];
  const inputs: Array<{ agent: string; text: string; evidence: string[] }> = [];
  const withEntry = new Set(patternOf.values());
  const report = (agent: Agent, pattern: Pattern, truth: FindingTrace["truth"]) => {
    const paraphrased = draw(seed, run, agent, pattern.id, "paraphrase") < 0.5;
    const text = paraphrased ? pattern.paraphrases[Math.floor(draw(seed, run, agent, pattern.id, "which") * pattern.paraphrases.length)]! : pattern.finding;
    // Orchestrators are not careful about names: a quarter of the findings spell the agent differently.
    const spelled = draw(seed, run, agent, pattern.id, "spelling") < 0.25 ? ` ${agent[0]!.toUpperCase()}${agent.slice(1)}` : agent;
    findings.push({ agent, pattern: pattern.id, truth, paraphrased, hadEntry: withEntry.has(pattern.id) });
    inputs.push({ agent: spelled, text, evidence: [anchorOf(pattern)] });
  };
  for (const agent of AGENTS) {
    for (const id of shown[agent]) {
      const pattern = byId.get(id);
      if (pattern && draw(seed, run, agent, id, "reflag") < config.q) report(agent, pattern, "primed");
    }
    for (const pattern of relevant) {
      if (!live(pattern, run) || !pattern.finders.includes(agent) || shown[agent].includes(pattern.id)) continue;
      if (draw(seed, run, agent, pattern.id, "find") < config.p) report(agent, pattern, "independent");
    }
  }
  const recorded = await kb.recordFindings(runId, inputs);
  tick(60_000);
  for (const c of recorded.confirmations) findings[c.index]!.recorded = { entry: c.entry, provenance: c.provenance, state: c.state };
  for (const u of recorded.unmatched) findings[u.index]!.recorded = "unmatched";
  for (const a of recorded.alreadyRecorded) findings[a.index]!.recorded = "already";

  // Synthesis: a pattern two or more agents flagged becomes a compounding candidate.
  const candidates: CompoundFinding[] = [];
  const candidatePattern: string[] = [];
  for (const pattern of world.patterns) {
    const flagged = findings.filter((f) => f.pattern === pattern.id);
    const agents = [...new Set(flagged.map((f) => f.agent))];
    if (agents.length < 2) continue;
    const first = inputs[findings.indexOf(flagged[0]!)]!;
    candidates.push({ text: first.text, agents, evidence: [anchorOf(pattern)], verify: [pattern.verify], durable: true });
    candidatePattern.push(pattern.id);
  }
  const created: RunTrace["created"] = [];
  let restored = recorded.restored.map((id) => patternOf.get(id) ?? id);
  if (candidates.length) {
    const hadEntry = new Set(patternOf.values());
    const result = await kb.compound(runId, candidates);
    for (const id of result.created) {
      const text = (await readFile(path.join(kb.layout.knowledge, `${id}.md`), "utf8")).replace(/\s+/g, " ");
      const index = candidates.findIndex((c) => text.includes(c.text.replace(/\s+/g, " ").trim()));
      const pattern = candidatePattern[index] ?? "?";
      created.push({ entry: id, pattern, duplicate: hadEntry.has(pattern) });
      patternOf.set(id, pattern);
    }
    restored = [...restored, ...result.restored.map((id) => patternOf.get(id) ?? id)];
  }
  git(root, ["add", "-A"], new Date(runTime(run, config.runsPerDay)));
  git(root, ["commit", "-q", "--allow-empty", "-m", `review ${runId}`], new Date(runTime(run, config.runsPerDay)));
  return { run, relevant: relevant.map((p) => p.id), shown, findings, archived: recorded.archived.map((id) => patternOf.get(id) ?? id), restored, created };
}
