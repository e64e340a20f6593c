/** `inject`: pick at most maxPerAgent relevant entries per agent per run, gate them, fit them to a token budget, record the injection. */
import path from "node:path";
import type { CairnConfig } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import type { CatalogueRecord } from "../indexing/catalogue.js";
import type { LedgerEvent, LedgerSource, NewEvent } from "../ledger/index.js";
import { heldOutForRun, injectionsForRun, ledgerState, projectState, type RunRef } from "../ledger/index.js";
import { selectWithHoldout, type EntryInfo } from "../lifecycle/select.js";
import type { Withheld } from "../types/inject.js";
import type { Layout } from "../store/layout.js";
import { verificationStates } from "../verify/records.js";
import { unknownAgentWarning } from "./agents.js";
import { fitToBudget } from "./budget.js";
import { focusResponses } from "./focus.js";
import { toContext, withContradictions, type Candidate } from "./inject-context.js";
import { chosenCandidate, gateCandidates, gateOf, readEarlier, type Admitted } from "./inject-gate.js";
import { previousAnswer, replayed, requestFingerprint } from "./inject-replay.js";
import { parseDiffEvidence, type DiffEvidence } from "./diff.js";
import type { SearchOptions, SearchResponse, SearchResult } from "./search.js";
import { prepareTokenCounter, TOKENIZER } from "./tokens.js";
import type { InjectInput, InjectResult } from "../types/inject.js";

export type { InjectInput, InjectResult } from "../types/inject.js";

export type InjectDeps = {
  layout: Layout;
  config: CairnConfig;
  /** The ledger: its events, or (faster) its folded state. */
  events: () => Promise<LedgerSource>;
  search: (query: string, options: SearchOptions) => Promise<SearchResponse>;
  append: (events: NewEvent[]) => Promise<unknown>;
  /** Where this run happens (`<branch>@<clone id>`), recorded on the events. Default: none. */
  origin?: () => Promise<string | undefined>;
  /** Today (UTC) for the decay clock. Default: the current date. */
  today?: string;
  /** The clock of the events. Default `() => new Date()`. */
  now?: () => Date;
  /** The time to stamp this injection's events with (the knowledge base's: see KnowledgeBase #stampTime); default `now`. */
  stampTime?: () => Promise<Date>;
  /** Every distinct `agents:` scope of the active entries, to tell an agent no scope reaches. Default: not checked. */
  agentScopes?: () => Promise<string[]>;
  /** The rule results the catalogue and the lint cache hold (the same engine and policy), so the gate need not run every rule again. Default: every candidate is linted. */
  gate?: () => Promise<CachedGate>;
  /** Ids that more than one entry file claims: withheld (which copy a reviewer approved is unknown). Default: none known. */
  claimedTwice?: () => Promise<ReadonlySet<string>>;
  /** Every ledger event, read only for a call of an agent that already had calls in the run (is it a repeated request?). Default: not checked. */
  allEvents?: () => Promise<readonly LedgerEvent[]>;
};

/** The gate's source of rule results for catalogue records (see src/check/catalogue-lint.ts). */
export type CachedGate = {
  /** The catalogue record of an entry file, if the catalogue has one. */
  record(path: string): Promise<CatalogueRecord | undefined>;
  /** Final diagnostics per record file. */
  final(records: readonly CatalogueRecord[]): Promise<Map<string, Diagnostic[]>>;
  /** Keep what was computed for the next call. */
  save(): Promise<void>;
};

/** Never throws: when the knowledge system fails, the review goes on with an empty context and one warning. */
export async function inject(deps: InjectDeps, input: InjectInput): Promise<InjectResult> {
  try {
    return await injectOrThrow(deps, input);
  } catch (error) {
    return unavailable(deps, input, `knowledge system unavailable (${(error as Error).message}); continuing without knowledge context`);
  }
}

/** The result of a call that injects nothing because the knowledge system cannot serve it: the review goes on. */
export function unavailable(deps: Pick<InjectDeps, "config">, input: InjectInput, warning: string): InjectResult {
  return { ...emptyResult(deps, input, 0), warnings: [warning] };
}

function emptyResult(deps: Pick<InjectDeps, "config">, input: InjectInput, remaining: number): InjectResult {
  const maxTokens = input.maxTokens ?? deps.config.maxInjectTokens;
  return { run: input.run, agent: input.agent, entries: [], tokens: 0, tokenizer: TOKENIZER, maxTokens, estimatedTokens: 0, remaining, heldOut: [], markdown: "", warnings: [] };
}

/** How many candidates beyond the free slots to ask search for, so withheld or oversized entries do not waste slots. */
const LOOKAHEAD = 8;

async function injectOrThrow(deps: InjectDeps, input: InjectInput): Promise<InjectResult> {
  // The tokenizer's tables load on another core while this one searches and gates.
  prepareTokenCounter();
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
  const empty = (extra: string[] = []): InjectResult => ({ ...emptyResult(deps, input, Math.max(0, cap - already.length)), warnings: [...warnings, ...extra] });
  const request = requestFingerprint(input);
  // A retry of a call whose answer was lost: the same entries again, not the next ones (src/retrieval/inject-replay.ts).
  const earlierAnswer = already.length || withheldBefore.length ? previousAnswer((await deps.allEvents?.()) ?? [], ref, input.agent, request) : undefined;
  if (earlierAnswer) return replay(deps, input, earlierAnswer, { already, withheldBefore, events, warnings });
  if (slots === 0) {
    return empty([limit === 0 ? "limit 0: nothing injected" : `agent "${input.agent}" already received ${already.length} entries in run "${input.run}" (cap ${cap}); nothing more is injected`]);
  }

  const diff = input.diff?.trim() ? parseDiffEvidence(input.diff) : undefined;
  if (input.diff?.trim() && !diff?.files.length) warnings.push("--diff holds no unified diff hunks (expected `git diff` output with ---/+++ and @@ lines); it was ignored");
  const queries = injectQueries(input, diff);
  const changedFiles = [...new Set([...repoRelative(deps.layout.root, input.changedFiles ?? [], warnings), ...(diff?.paths ?? [])])];
  if (!queries.full && !changedFiles.length) return empty(["no keywords, summary, diff or changed files given: nothing to search for"]);

  // Only a hint: when the scopes cannot be read, the search below reports the real problem.
  const scopes = deps.agentScopes ? await deps.agentScopes().catch(() => undefined) : undefined;
  const unknownAgent = scopes ? unknownAgentWarning(input.agent, config.agents, scopes) : undefined;
  if (unknownAgent) warnings.push(unknownAgent);

  const excluded = ["disputed", "superseded"].filter((s) => !(input.includeStatuses ?? []).includes(s as "disputed"));
  const skip = new Set([...already, ...withheldBefore]);
  let lastResponse: SearchResponse | undefined;
  const search = async (want: number, withheld: readonly string[]): Promise<SearchResponse> => {
    const options: SearchOptions = {
      limit: want,
      agent: input.agent,
      changedFiles,
      ...(diff?.files.length ? { changedHunks: diff.files } : {}),
      excludeStatuses: excluded,
      excludeIds: withheld,
      ...(input.explain ? { explain: true } : {}),
    };
    // The agent's keywords alone rank the entries the review itself supports (the full query's, above
    // the floor) toward the agent's domain; they qualify no entry on their own, or every review would
    // hand each agent the same entries about its domain (bench/retrieval-floor.ts: inject-style queries).
    if (queries.keywords) {
      const [full, keywords] = await Promise.all([deps.search(queries.full, options), deps.search(queries.keywords, options)]);
      lastResponse = focusResponses(full, keywords, slots, skip);
    } else lastResponse = await deps.search(queries.full, options);
    return lastResponse;
  };
  const candidates = candidateQueue(search, slots + skip.size + LOOKAHEAD, skip, warnings);

  const gate = await gateOf(deps);
  const verifications = verificationStates(events);
  const today = deps.today ?? new Date().toISOString().slice(0, 10);
  // Holdout, a step of its own (src/lifecycle/select.ts), on the entries the gate admitted: inject, withhold, or skip (past the decay limit).
  const holdout = { withheld: [] as Withheld[], events: [] as Withheld[], handConfirmed: [] as Array<{ entry: string; date: string }> };
  const select = (admitted: Admitted[], free: number) => {
    const views = projectState(ledgerState(events), admitted.map((c) => confirmationInfo(c.info)), { today });
    const away = new Set(admitted.filter((c) => c.hit.explain.awayFromChange).map((c) => c.info.id));
    const selection = selectWithHoldout({ candidates: admitted.map((c) => c.info), slots: free, views, events, run: ref, config, today, awayFromChange: away });
    holdout.withheld.push(...selection.withheld);
    holdout.events.push(...selection.events);
    holdout.handConfirmed.push(...selection.handConfirmed);
    return { views, inject: new Set(selection.inject.map((e) => e.id)) };
  };
  // Entries given to this agent by earlier calls of the run are in its prompt too: contradictions with them count.
  const earlier = await readEarlier(deps.layout, already);
  const maxTokens = input.maxTokens ?? config.maxInjectTokens;
  const chosen: Candidate[] = [];
  let budget = await fitToBudget([], maxTokens);
  try {
    while (chosen.length < slots) {
      const batch = await candidates.next(slots - chosen.length + 2);
      if (!batch.length) break;
      const admitted = await gateCandidates(deps.layout, gate, batch, warnings);
      // A withheld entry must not set the relevance floor for the others (a keyword-stuffed broken entry would hide them all).
      if (admitted.length < batch.length) candidates.withhold(batch.filter((hit) => !admitted.some((c) => c.hit.id === hit.id)).map((hit) => hit.id));
      const { views, inject } = select(admitted, slots - chosen.length);
      for (const admittedOne of admitted) {
        if (chosen.length >= slots) break;
        if (!inject.has(admittedOne.info.id)) continue;
        const candidate = await chosenCandidate(admittedOne, warnings);
        if (!candidate) {
          candidates.withhold([admittedOne.hit.id]); // as any withheld entry: it sets no relevance floor
          continue;
        }
        candidate.context = toContext(deps.config, candidate, views.get(candidate.entry.id)?.unconfirmedRuns ?? 0, verifications.get(candidate.entry.id));
        const tried = await fitToBudget(withContradictions([...chosen, candidate], earlier), maxTokens);
        if (!tried.fits) {
          warnings.push(`skipped ${candidate.entry.id}: it would take the Knowledge Context to ${tried.tokens} tokens, over the ${maxTokens}-token budget (--max-tokens / maxInjectTokens); smaller entries further down may still fit`);
          continue;
        }
        chosen.push(candidate);
        budget = tried;
      }
    }
    // With the slots filled, a few more relevant candidates are still tested for holdout: an entry due for it that
    // this agent is not shown is an independent test of it, so a crowded agent does not stretch a false positive's last chance.
    if (chosen.length >= slots && config.holdout !== "off") {
      const spare = await gateCandidates(deps.layout, gate, await candidates.next(HOLDOUT_SPARE), []);
      if (spare.length) select(spare, 0);
    }
  } catch (error) {
    if (!(error instanceof SearchUnavailable)) throw error;
    if (!chosen.length) return empty([`knowledge search unavailable (${(error.cause as Error).message}); continuing without knowledge context`]);
    warnings.push(`knowledge search unavailable (${(error.cause as Error).message}); injecting what was found before it failed`);
  }

  await gate.save();
  const context = budget.entries;
  // An injection that cannot be recorded must not be handed out: a later finding would pass for independent.
  // The agent's first call of a run is recorded even when empty: record can then tell "got nothing" from "never asked".
  if (!input.dryRun && (context.length || holdout.events.length || (!already.length && !withheldBefore.length))) {
    // Stamped as every other event of this clone (after the ledger's latest when the clock stepped back): an injection
    // on the raw clock would sort before a confirmation stamped after the ledger's latest, and never count against it.
    const now = (await deps.stampTime?.()) ?? (deps.now ?? (() => new Date()))();
    const origin = withOrigin(ref.origin);
    const handConfirmed = [...new Map(holdout.handConfirmed.map((h) => [h.entry, h])).values()];
    await deps.append([
      // A hand edit seen now is a confirmation just before this injection (README "The decay clock").
      ...handConfirmed.map((h) => ({ type: "hand-confirmed" as const, entry: h.entry, date: h.date, time: new Date(now.getTime() - 1) })),
      ...holdout.events.map((h) => ({ type: "held-out" as const, run: input.run, ...origin, agent: input.agent, entry: h.id, time: now })),
      { type: "injected", run: input.run, ...origin, agent: input.agent, entries: context.map((c) => c.id), request, time: now },
    ]);
  }
  return {
    run: input.run,
    agent: input.agent,
    entries: context,
    tokens: budget.tokens,
    tokenizer: TOKENIZER,
    maxTokens,
    estimatedTokens: budget.tokens,
    remaining: Math.max(0, cap - already.length - context.length),
    heldOut: [...withheldBefore.map((id) => ({ id, reason: "withheld from this agent earlier in this run (holdout)" })), ...holdout.withheld],
    markdown: budget.markdown,
    warnings,
    ...(input.explain ? { belowFloor: notInjected(candidates.unused(), lastResponse?.belowFloor ?? [], slots) } : {}),
  };
}

/** Candidates that were not injected: above the floor but past the slots first, then the best below the floor. */
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

class SearchUnavailable extends Error {}

/**
 * Search results in rank order, fetched again with a larger limit when the gate or the budget used
 * them up, and searched again without the withheld entries once the gate withholds some.
 */
function candidateQueue(search: (limit: number, withheld: readonly string[]) => Promise<SearchResponse>, first: number, skip: ReadonlySet<string>, warnings: string[]) {
  const seen = new Set<string>();
  const withheld: string[] = [];
  let want = first;
  let pending: SearchResult[] = [];
  let exhausted = false;
  let stale = true;
  const refill = async (): Promise<void> => {
    let response: SearchResponse;
    try {
      response = await search(want, withheld);
    } catch (error) {
      throw new SearchUnavailable("search failed", { cause: error });
    }
    for (const w of response.warnings) if (!warnings.includes(w)) warnings.push(w);
    pending = response.results.filter((r) => !skip.has(r.id) && !seen.has(r.id));
    exhausted = response.results.length < want;
    stale = false;
  };
  return {
    async next(count: number): Promise<SearchResult[]> {
      if (stale) await refill();
      else if (!pending.length && !exhausted) {
        want *= 2;
        await refill();
      }
      const out = pending.splice(0, count);
      for (const r of out) seen.add(r.id);
      return out;
    },
    /** Candidates fetched but never taken (above the floor, past the slots). */
    unused(): SearchResult[] {
      return [...pending];
    },
    /** Leave these out of every later search, so they no longer count for the relevance floor. */
    withhold(ids: string[]): void {
      withheld.push(...ids);
      stale = true;
    },
  };
}

/** Candidates read beyond the filled slots, so that entries due for holdout are still tested. */
const HOLDOUT_SPARE = 5;

function withOrigin(origin: string | undefined): { origin?: string } {
  return origin === undefined ? {} : { origin };
}

/** What the ledger projection needs of an entry. */
function confirmationInfo(entry: EntryInfo): { id: string; lastConfirmed?: string } {
  const lastConfirmed = typeof entry.frontmatter.lastConfirmed === "string" ? entry.frontmatter.lastConfirmed : undefined;
  return lastConfirmed === undefined ? { id: entry.id } : { id: entry.id, lastConfirmed };
}
/** The answer an earlier call of this agent and run gave the same request, gated and rendered again, not recorded (inject-replay.ts). */
async function replay(
  deps: InjectDeps,
  input: InjectInput,
  ids: string[],
  run: { already: string[]; withheldBefore: string[]; events: LedgerSource; warnings: string[] },
): Promise<InjectResult> {
  const gate = await gateOf(deps);
  const warnings: string[] = [];
  const leftOut = (id: string, why: string) => `left out ${id} of the earlier answer: ${why}`;
  const hits = ids.map((id): SearchResult => {
    const rel = path.relative(deps.layout.root, path.join(deps.layout.knowledge, `${id}.md`)).split(path.sep).join("/");
    return { id, path: rel, state: "active", score: 0, status: "observed", explain: { relevant: true } };
  });
  const gated = await gateCandidates(deps.layout, gate, hits, warnings, (hit, why) => leftOut(hit.id, `${why} — \`cairn check ${hit.path}\` says why`));
  const admitted = gated.filter((a) => a.info.id === a.hit.id || (warnings.push(leftOut(a.hit.id, `its file now holds entry ${a.info.id}`)), false));
  const chosen: Candidate[] = [];
  for (const one of admitted) {
    const candidate = await chosenCandidate(one, warnings);
    if (candidate) chosen.push(candidate);
  }
  const views = projectState(ledgerState(run.events), admitted.map((a) => confirmationInfo(a.info)), { today: deps.today ?? new Date().toISOString().slice(0, 10) });
  const verifications = verificationStates(run.events);
  for (const c of chosen) c.context = toContext(deps.config, c, views.get(c.entry.id)?.unconfirmedRuns ?? 0, verifications.get(c.entry.id));
  const earlier = await readEarlier(deps.layout, run.already.filter((id) => !ids.includes(id)));
  const budget = await replayed(chosen, earlier, input.maxTokens ?? deps.config.maxInjectTokens, warnings);
  await gate.save();
  return {
    ...emptyResult(deps, input, Math.max(0, deps.config.maxPerAgent - run.already.length)),
    entries: budget.entries,
    tokens: budget.tokens,
    estimatedTokens: budget.tokens,
    markdown: budget.markdown,
    heldOut: run.withheldBefore.map((id) => ({ id, reason: "withheld from this agent earlier in this run (holdout)" })),
    warnings: [...run.warnings, `repeated request: agent "${input.agent}" was given these entries for it earlier in run "${input.run}" (recorded then, not again)`, ...warnings],
  };
}

/**
 * Changed files as the index names them: relative to the repository root. An absolute path inside the root is made
 * relative; one outside it matches nothing, and says so. Silently matching nothing, a misnamed change made every
 * anchored entry "away from the change" (no boost, and holdout never tested an entry due for it).
 */
function repoRelative(root: string, files: readonly string[], warnings: string[]): string[] {
  const outside: string[] = [];
  const out = files.map((file) => {
    if (!path.isAbsolute(file)) return file;
    const rel = path.relative(root, file);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) {
      outside.push(file);
      return file;
    }
    return rel.split(path.sep).join("/");
  });
  if (outside.length) warnings.push(`changed files outside the repository match no entry: ${outside.slice(0, 3).join(", ")}${outside.length > 3 ? ` and ${outside.length - 3} more` : ""} (expected paths relative to ${root}, e.g. src/auth.ts)`);
  return out;
}
