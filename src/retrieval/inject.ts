/** `inject`: pick at most maxPerAgent relevant entries per agent per run, explain them, record the injection. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import { anchorWarnings, resolveEntryAnchors } from "../anchors/entry.js";
import { latestFingerprints } from "../anchors/fingerprint.js";
import { anchorResolverFor, type AnchorResolver } from "../check/anchors.js";
import { verificationStates, verificationWarning, type VerificationState } from "../verify/records.js";
import { refsOf } from "../check/references.js";
import type { Entry } from "../entry/types.js";
import type { EntryLedgerView, LedgerEvent } from "../ledger/index.js";
import { injectionsForRun, projectLedger } from "../ledger/index.js";
import { readEntryFile } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import { unknownAgentWarning } from "./agents.js";
import { estimateTokens, renderContextMarkdown, type ContextEntry } from "./context.js";
import { parseDiffEvidence, type DiffEvidence } from "./diff.js";
import type { SearchOptions, SearchResponse, SearchResult } from "./search.js";

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
  /**
   * The change under review as a unified diff (`git diff` output). Its paths join `changedFiles`,
   * its hunks make the changed-file signal precise (an anchor on a changed line or symbol is strong
   * evidence, a glob weak) and its code joins the query. Default none.
   */
  diff?: string;
  /** Also report the best candidates below the relevance floor and why each was cut (`belowFloor`). Default false. */
  explain?: boolean;
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
  markdown: string;
  warnings: string[];
  /** With `explain`: the best candidates that were not injected and why (below the floor, or past the cap). */
  belowFloor?: Array<{ id: string; path: string; score: number; reasons: string[] }>;
};

export type InjectDeps = {
  layout: Layout;
  config: CairnConfig;
  events: () => Promise<LedgerEvent[]>;
  search: (query: string, options: SearchOptions) => Promise<SearchResponse>;
  append: (events: Array<{ type: "injected"; run: string; agent: string; entries: string[] }>) => Promise<unknown>;
  /** Every distinct `agents:` scope of the active entries, to tell an agent no scope reaches. Default: not checked. */
  agentScopes?: () => Promise<string[]>;
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
  const already = injectionsForRun(events, input.run, input.agent);
  const slots = Math.max(0, Math.min(limit, cap - already.length));
  const empty = (extra: string[] = []): InjectResult => ({
    run: input.run,
    agent: input.agent,
    entries: [],
    estimatedTokens: 0,
    remaining: Math.max(0, cap - already.length),
    markdown: "",
    warnings: [...warnings, ...extra],
  });
  if (slots === 0) {
    return empty([limit === 0 ? "limit 0: nothing injected" : `agent "${input.agent}" already received ${already.length} entries in run "${input.run}" (cap ${cap}); nothing more is injected`]);
  }

  const diff = input.diff?.trim() ? parseDiffEvidence(input.diff) : undefined;
  if (input.diff?.trim() && !diff?.files.length) warnings.push("--diff holds no unified diff hunks (expected `git diff` output with ---/+++ and @@ lines); it was ignored");
  const queries = injectQueries(input, diff);
  const changedFiles = [...new Set([...(input.changedFiles ?? []), ...(diff?.paths ?? [])])];
  if (!queries.full && !changedFiles.length) return empty(["no keywords, summary, diff or changed files given: nothing to search for"]);

  // Only a hint: when the scopes cannot be read, the search below reports the real problem.
  const scopes = deps.agentScopes ? await deps.agentScopes().catch(() => undefined) : undefined;
  const unknownAgent = scopes ? unknownAgentWarning(input.agent, config.agents, scopes) : undefined;
  if (unknownAgent) warnings.push(unknownAgent);

  const excluded = ["disputed", "superseded"].filter((s) => !(input.includeStatuses ?? []).includes(s as "disputed"));
  const skip = new Set(already);
  let response: SearchResponse;
  try {
    const options: SearchOptions = {
      limit: slots + skip.size,
      agent: input.agent,
      changedFiles,
      ...(diff?.files.length ? { changedHunks: diff.files } : {}),
      excludeStatuses: excluded,
      ...(input.explain ? { explain: true } : {}),
    };
    // The agent's keywords alone rank the entries the review itself supports (the full query's, above
    // the floor) toward the agent's domain; they qualify no entry on their own, or every review would
    // hand each agent the same entries about its domain (bench/retrieval-floor.ts: inject-style queries).
    response = queries.keywords
      ? focusResponses(...(await Promise.all([deps.search(queries.full, options), deps.search(queries.keywords, options)])))
      : await deps.search(queries.full, options);
  } catch (error) {
    // The knowledge system never blocks a review: no context, one warning.
    return empty([`knowledge search unavailable (${(error as Error).message}); continuing without knowledge context`]);
  }
  warnings.push(...response.warnings);
  const ranked = response.results.filter((r) => !skip.has(r.id));
  const picked = ranked.slice(0, slots);

  const entries: Entry[] = [];
  for (const hit of picked) {
    const abs = path.join(deps.layout.root, hit.path);
    const read = await readEntryFile(deps.layout, { abs, rel: hit.path, state: hit.state });
    if (read.entry) entries.push(read.entry);
  }
  const views = projectLedger(events, entries.map((e) => ({ id: e.id, lastConfirmed: str(e.frontmatter.lastConfirmed) })));
  // Entries given to this agent by earlier calls of the run are in its prompt too: contradictions with them count.
  const earlier = await readEarlier(deps.layout, already);
  const resolver = anchorResolverFor(deps.layout, { repos: deps.config.repos, fingerprints: async () => latestFingerprints(events) });
  const verifications = verificationStates(events);
  const context = await Promise.all(
    entries.map((entry) => toContext(deps, entry, entries, earlier, views.get(entry.id), picked.find((p) => p.id === entry.id)?.score ?? 0, resolver, verifications.get(entry.id))),
  );
  const markdown = renderContextMarkdown(context);
  // An injection that cannot be recorded must not be handed out: a later finding would pass for independent.
  if (context.length && !input.dryRun) await deps.append([{ type: "injected", run: input.run, agent: input.agent, entries: context.map((c) => c.id) }]);
  return {
    run: input.run,
    agent: input.agent,
    entries: context,
    estimatedTokens: estimateTokens(markdown),
    remaining: Math.max(0, cap - already.length - context.length),
    markdown,
    warnings,
    ...(input.explain ? { belowFloor: notInjected(ranked.slice(slots), response.belowFloor ?? [], slots) } : {}),
  };
}

/** Candidates that were not injected: above the floor but past the cap first, then the best below the floor. */
function notInjected(pastCap: SearchResult[], below: SearchResult[], slots: number): NonNullable<InjectResult["belowFloor"]> {
  return [
    ...pastCap.map((r) => ({ id: r.id, path: r.path, score: r.score, reasons: [`above the floor, but past the ${slots} slot(s) left for this agent in this run`] })),
    ...below.map((r) => ({ id: r.id, path: r.path, score: r.score, reasons: r.explain.cut ?? [] })),
  ];
}

/**
 * The queries inject searches with: everything it knows (keywords, summary, changed paths as words,
 * the diff's code) and, when there is a summary or a diff besides keywords, the keywords alone.
 */
export function injectQueries(input: Pick<InjectInput, "keywords" | "summary" | "changedFiles">, diff?: DiffEvidence): { full: string; keywords?: string } {
  const paths = [...new Set([...(input.changedFiles ?? []), ...(diff?.paths ?? [])])];
  const full = [...(input.keywords ?? []), input.summary ?? "", ...paths.map((f) => f.replace(/[/._-]+/g, " ")), diff?.queryText ?? ""].join("\n").trim();
  const keywords = (input.keywords ?? []).join("\n").trim();
  return keywords && (input.summary?.trim() || diff?.queryText.trim()) ? { full, keywords } : { full };
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

/** Reciprocal-rank merge of ranked lists (k 60, list weights default 1); an item keeps its first list's copy; ties by id. */
export function mergeRanked<T extends { id: string }>(lists: ReadonlyArray<readonly T[]>, weights: readonly number[] = []): Array<{ item: T; score: number }> {
  const byId = new Map<string, { item: T; score: number }>();
  lists.forEach((list, l) => {
    const weight = weights[l] ?? 1;
    list.forEach((item, i) => {
      const current = byId.get(item.id);
      byId.set(item.id, { item: current?.item ?? item, score: (current?.score ?? 0) + weight / (60 + i + 1) });
    });
  });
  return [...byId.values()].sort((a, b) => b.score - a.score || (a.item.id < b.item.id ? -1 : 1));
}

/**
 * Weight of the keywords-only ranking when it re-ranks the full query's results (the full query's is 1).
 * Default 0.05, a tie-breaker (bench/retrieval-floor.ts, inject-style queries: at 1, 0.5 and 0.25
 * an agent's generic keywords reorder the review's own matches enough to push the right entry out
 * of the five — at 0.25 inject-style Cranfield kept 87% of Hit@5, at 0.05 96%; near-equal matches
 * still go the agent's way).
 */
export const KEYWORD_FOCUS_WEIGHT = 0.05;

/** Why an entry matching only the agent's keywords is not injected. */
export const KEYWORDS_ONLY_REASON = "matches the agent's keywords, but nothing of the change under review (summary, diff, changed files)";

/**
 * The full query's results, re-ranked by reciprocal-rank fusion with the keywords-only results;
 * entries found by the keywords alone are listed below the floor (they say nothing about this review).
 */
export function focusResponses(full: SearchResponse, keywords: SearchResponse): SearchResponse {
  const supported = new Set(full.results.map((r) => r.id));
  const results = mergeRanked([full.results, keywords.results.filter((r) => supported.has(r.id))], [1, KEYWORD_FOCUS_WEIGHT]).map(({ item, score }) => ({ ...item, score: Number(score.toFixed(6)) }));
  const keywordOnly = keywords.results.filter((r) => !supported.has(r.id)).map((r) => ({ ...r, explain: { ...r.explain, relevant: false, cut: [KEYWORDS_ONLY_REASON] } }));
  const below = full.belowFloor || keywords.belowFloor ? [...keywordOnly, ...(full.belowFloor ?? [])] : undefined;
  return {
    results,
    warnings: [...new Set([...full.warnings, ...keywords.warnings])],
    mode: full.mode === "hybrid" || keywords.mode === "hybrid" ? "hybrid" : "lexical",
    ...(below ? { belowFloor: below } : {}),
  };
}

async function toContext(
  deps: InjectDeps,
  entry: Entry,
  injected: Entry[],
  earlier: Map<string, Entry | undefined>,
  view: EntryLedgerView | undefined,
  score: number,
  resolver: AnchorResolver,
  verification: VerificationState | undefined,
): Promise<ContextEntry> {
  const fm = entry.frontmatter;
  // Drift travels with the entry ("the cited lines moved to 92-101"); it never filters it out.
  const warnings: string[] = anchorWarnings(await resolveEntryAnchors(resolver, entry));
  const failed = verificationWarning(entry, verification);
  if (failed) warnings.push(failed);
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
    ...(entry.fix ? { fix: entry.fix.text } : {}),
    evidence: entry.evidence.anchors.length ? distinct(entry.evidence.anchors.map(anchorText)) : [entry.evidence.text],
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

/** Anchors found in one prose paragraph share its text: show it once (drop lines another line already contains). */
function distinct(lines: string[]): string[] {
  const unique = [...new Set(lines)];
  return unique.filter((line, i) => !unique.some((other, j) => j !== i && other.length > line.length && other.includes(line)));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
