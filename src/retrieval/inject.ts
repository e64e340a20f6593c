/** `inject`: pick at most maxPerAgent relevant entries per agent per run, explain them, record the injection. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { anchorResolverFor, type AnchorResolver } from "../check/anchors.js";
import { refsOf } from "../check/references.js";
import type { Entry } from "../entry/types.js";
import type { EntryLedgerView, LedgerEvent, NewEvent } from "../ledger/index.js";
import { heldOutForRun, injectionsForRun, projectLedger, type RunRef } from "../ledger/index.js";
import { selectWithHoldout, type Withheld } from "../lifecycle/select.js";
import { readEntryFile } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import { estimateTokens, renderContextMarkdown, type ContextEntry } from "./context.js";
import type { SearchOptions, SearchResponse } from "./search.js";

export type InjectInput = {
  /** Run id chosen by the orchestrator (e.g. the PR number and attempt). */
  run: string;
  /** Agent name (e.g. `security`). */
  agent: string;
  /** The agent's domain keywords. Default none. */
  keywords?: string[];
  /** Summary of the document under review. Default none. */
  summary?: string;
  /** Changed file paths: entries whose anchors touch them are boosted. Default none. */
  changedFiles?: string[];
  /** Lower the cap for this call (never raises it above maxPerAgent). Default maxPerAgent. */
  limit?: number;
  /** Also inject `disputed` / `superseded` entries. Default false. */
  includeStatuses?: Array<"disputed" | "superseded">;
  /** Compute the context without recording an `injected` event. Default false. */
  dryRun?: boolean;
};

export type InjectResult = {
  run: string;
  agent: string;
  entries: ContextEntry[];
  estimatedTokens: number;
  /** Slots left for this agent in this run after this call. */
  remaining: number;
  /** Entries withheld from this agent by the holdout policy (recorded as `held-out` events unless dryRun), or skipped as past their decay limit. */
  heldOut: Withheld[];
  markdown: string;
  warnings: string[];
};

export type InjectDeps = {
  layout: Layout;
  config: CairnConfig;
  events: () => Promise<LedgerEvent[]>;
  search: (query: string, options: SearchOptions) => Promise<SearchResponse>;
  append: (events: NewEvent[]) => Promise<unknown>;
  /** Where this run happens (`<branch>@<clone id>`), recorded on the events. Default: none. */
  origin?: () => Promise<string | undefined>;
  /** Today (UTC) for the decay clock. Default: the current date. */
  today?: string;
  /** The clock of the events. Default `() => new Date()`. */
  now?: () => Date;
};

/** Never throws: when the knowledge system fails, the review goes on with an empty context and one warning. */
export async function inject(deps: InjectDeps, input: InjectInput): Promise<InjectResult> {
  try {
    return await injectOrThrow(deps, input);
  } catch (error) {
    return {
      run: input.run,
      agent: input.agent,
      entries: [],
      estimatedTokens: 0,
      remaining: 0,
      heldOut: [],
      markdown: "",
      warnings: [`knowledge system unavailable (${(error as Error).message}); continuing without knowledge context`],
    };
  }
}

async function injectOrThrow(deps: InjectDeps, input: InjectInput): Promise<InjectResult> {
  const { config } = deps;
  const warnings: string[] = [];
  const cap = config.maxPerAgent;
  let limit = cap;
  if (input.limit !== undefined) {
    if (input.limit > cap) warnings.push(`--limit ${input.limit} is above maxPerAgent (${cap}); the cap can only be raised in cairn.config.json`);
    limit = Math.max(0, Math.min(input.limit, cap));
  }
  const events = await deps.events();
  const ref: RunRef = { run: input.run, ...withOrigin(await deps.origin?.()) };
  const already = injectionsForRun(events, ref, input.agent);
  // Withheld from this agent earlier in the run: still withheld, not recorded twice.
  const withheldBefore = heldOutForRun(events, ref, input.agent);
  const slots = Math.max(0, Math.min(limit, cap - already.length));
  const empty = (extra: string[] = []): InjectResult => ({
    run: input.run,
    agent: input.agent,
    entries: [],
    estimatedTokens: 0,
    remaining: Math.max(0, cap - already.length),
    heldOut: [],
    markdown: "",
    warnings: [...warnings, ...extra],
  });
  if (slots === 0) {
    return empty([limit === 0 ? "limit 0: nothing injected" : `agent "${input.agent}" already received ${already.length} entries in run "${input.run}" (cap ${cap}); nothing more is injected`]);
  }

  const changedFiles = input.changedFiles ?? [];
  const query = [...(input.keywords ?? []), input.summary ?? "", ...changedFiles.map((f) => f.replace(/[/._-]+/g, " "))].join("\n").trim();
  if (!query && !changedFiles.length) return empty(["no keywords, summary or changed files given: nothing to search for"]);

  const excluded = ["disputed", "superseded"].filter((s) => !(input.includeStatuses ?? []).includes(s as "disputed"));
  const skip = new Set([...already, ...withheldBefore]);
  let response: SearchResponse;
  try {
    // HOLDOUT_SPARE more than the slots: an entry the holdout policy withholds leaves its slot to the next one.
    const options = { limit: slots + skip.size + HOLDOUT_SPARE, agent: input.agent, changedFiles, excludeStatuses: excluded };
    const keywords = (input.keywords ?? []).join("\n").trim();
    // A PR summary is long and mostly off-topic for one agent: on its own query, the agent's domain
    // keywords would be outweighed by it. Entries relevant to either query qualify; the lists are fused.
    response = keywords && input.summary?.trim()
      ? mergeResponses(await Promise.all([deps.search(query, options), deps.search(keywords, options)]))
      : await deps.search(query, options);
  } catch (error) {
    // The knowledge system never blocks a review: no context, one warning.
    return empty([`knowledge search unavailable (${(error as Error).message}); continuing without knowledge context`]);
  }
  warnings.push(...response.warnings);
  const candidates = response.results.filter((r) => !skip.has(r.id));

  const read: Entry[] = [];
  for (const hit of candidates.slice(0, slots + HOLDOUT_SPARE)) {
    const abs = path.join(deps.layout.root, hit.path);
    const result = await readEntryFile(deps.layout, { abs, rel: hit.path, state: hit.state });
    if (result.entry) read.push(result.entry);
  }
  const today = deps.today ?? new Date().toISOString().slice(0, 10);
  const allViews = projectLedger(events, read.map((e) => ({ id: e.id, lastConfirmed: str(e.frontmatter.lastConfirmed) })), { today });
  // Holdout, a step of its own (src/lifecycle/select.ts): which candidates go in, which are withheld, which are past their decay limit.
  const selection = selectWithHoldout({ candidates: read, slots, views: allViews, events, run: ref, config, today });
  const entries = selection.inject;
  const picked = candidates.filter((c) => entries.some((e) => e.id === c.id));
  const views = allViews;
  // Entries given to this agent by earlier calls of the run are in its prompt too: contradictions with them count.
  const earlier = await readEarlier(deps.layout, already);
  const resolver = anchorResolverFor(deps.layout);
  const context = await Promise.all(
    entries.map((entry) => toContext(deps, entry, entries, earlier, views.get(entry.id), picked.find((p) => p.id === entry.id)?.score ?? 0, resolver)),
  );
  const markdown = renderContextMarkdown(context);
  // An injection that cannot be recorded must not be handed out: a later finding would pass for independent.
  // The agent's first call of a run is recorded even when empty: record can then tell "got nothing" from "never asked".
  if (!input.dryRun && (context.length || selection.events.length || (!already.length && !withheldBefore.length))) {
    const now = (deps.now ?? (() => new Date()))();
    const origin = withOrigin(ref.origin);
    await deps.append([
      // A hand edit seen now is a confirmation just before this injection (README "The decay clock").
      ...selection.handConfirmed.map((h) => ({ type: "hand-confirmed" as const, entry: h.entry, date: h.date, time: new Date(now.getTime() - 1) })),
      ...selection.events.map((h) => ({ type: "held-out" as const, run: input.run, ...origin, agent: input.agent, entry: h.id, time: now })),
      { type: "injected", run: input.run, ...origin, agent: input.agent, entries: context.map((c) => c.id), time: now },
    ]);
  }
  return {
    run: input.run,
    agent: input.agent,
    entries: context,
    estimatedTokens: estimateTokens(markdown),
    remaining: Math.max(0, cap - already.length - context.length),
    heldOut: [...withheldBefore.map((id) => ({ id, reason: "withheld from this agent earlier in this run (holdout)" })), ...selection.withheld],
    markdown,
    warnings,
  };
}

/** Earlier-injected entries by id: `knowledge/<id>.md` when it holds that id (ids are file names unless set in the frontmatter). */
async function readEarlier(layout: Layout, ids: string[]): Promise<Map<string, Entry | undefined>> {
  const out = new Map<string, Entry | undefined>();
  for (const id of ids) {
    const abs = path.join(layout.knowledge, `${id}.md`);
    const read = await readEntryFile(layout, { abs, rel: path.relative(layout.root, abs).split(path.sep).join("/"), state: "active" });
    out.set(id, read.entry?.id === id ? read.entry : undefined);
  }
  return out;
}

/** Reciprocal-rank merge of responses that each passed the relevance floor; ties by id. */
function mergeResponses(responses: SearchResponse[]): SearchResponse {
  const byId = new Map<string, { result: SearchResponse["results"][number]; score: number }>();
  for (const response of responses) {
    response.results.forEach((result, i) => {
      const current = byId.get(result.id);
      const score = (current?.score ?? 0) + 1 / (60 + i + 1);
      byId.set(result.id, { result: current?.result ?? result, score });
    });
  }
  const results = [...byId.values()]
    .sort((a, b) => b.score - a.score || (a.result.id < b.result.id ? -1 : 1))
    .map(({ result, score }) => ({ ...result, score: Number(score.toFixed(6)) }));
  return { results, warnings: [...new Set(responses.flatMap((r) => r.warnings))], mode: responses.some((r) => r.mode === "hybrid") ? "hybrid" : "lexical" };
}

async function toContext(
  deps: InjectDeps,
  entry: Entry,
  injected: Entry[],
  earlier: Map<string, Entry | undefined>,
  view: EntryLedgerView | undefined,
  score: number,
  resolver: AnchorResolver,
): Promise<ContextEntry> {
  const fm = entry.frontmatter;
  const warnings: string[] = [];
  for (const anchor of entry.evidence.anchors) {
    const problems = await resolver.resolve(anchor, entry.path);
    if (problems.length) warnings.push(`anchor drift: ${anchor.raw.split("\n")[0]} — ${problems[0]!.message.replace(/^evidence anchor `[^`]*`: /, "")}`);
  }
  const status = typeof fm.status === "string" ? fm.status : "observed";
  if (status === "disputed") warnings.push("disputed: another review or a human questioned this entry");
  const others = [...injected.filter((e) => e.id !== entry.id), ...[...earlier.values()].filter((e): e is Entry => e !== undefined)];
  const otherIds = new Set([...others.map((e) => e.id), ...earlier.keys()]);
  const contradicted = [
    ...refsOf(entry, "contradicts").filter((id) => otherIds.has(id)),
    ...others.filter((e) => refsOf(e, "contradicts").includes(entry.id)).map((e) => e.id),
  ];
  for (const id of new Set(contradicted)) warnings.push(`contradicts injected entry ${id}`);
  const runs = view?.unconfirmedRuns ?? 0;
  if (runs >= Math.ceil(deps.config.decayAfterRuns * deps.config.nearDecayRatio)) {
    warnings.push(`near decay: injected in ${runs}/${deps.config.decayAfterRuns} runs without an independent confirmation`);
  }
  return {
    id: entry.id,
    ...(typeof fm.title === "string" ? { title: fm.title } : {}),
    finding: entry.finding.text.replace(/\s*\n\s*/g, " ").trim(),
    evidence: entry.evidence.anchors.length ? entry.evidence.anchors.map(anchorText) : [entry.evidence.text],
    verify: entry.verify.steps,
    lastConfirmed: str(fm.lastConfirmed) ?? null,
    provenance: str(fm.provenance) ?? null,
    status,
    score,
    warnings,
  };
}

/** An anchor as the agent reads it: the anchor and its note (a prose anchor's note already holds the anchor). */
function anchorText(anchor: Entry["evidence"]["anchors"][number]): string {
  const note = anchor.note?.trim();
  return oneLine(!note ? anchor.raw : note.includes(anchor.raw.trim()) ? note : `${anchor.raw} — ${note}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** Candidates read beyond the free slots, so that withheld entries can be replaced. */
const HOLDOUT_SPARE = 5;

function withOrigin(origin: string | undefined): { origin?: string } {
  return origin === undefined ? {} : { origin };
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
