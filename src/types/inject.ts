/** Before the review: the input and result of `inject` (the Knowledge Context for one agent), as plain types. */

/** What one agent in one run is about to review, for `inject`. */
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
  /** Token budget of this call's Knowledge Context (o200k_base tokens). Default config `maxInjectTokens` (4000). */
  maxTokens?: number;
  /** Also inject `disputed` / `superseded` entries. Default false. */
  includeStatuses?: Array<"disputed" | "superseded">;
  /** Compute the context without recording an `injected` event. Default false. */
  dryRun?: boolean;
};

/** One entry of a Knowledge Context, each field one line of plain text (entry text cannot forge prompt structure). */
export type ContextEntry = {
  /** Entry id. */
  id: string;
  /** The entry's title, when it has one. */
  title?: string;
  /** The finding: 1–3 sentences, a generalised heuristic. */
  finding: string;
  /** The entry's `Fix:` section, when it has one. */
  fix?: string;
  /** Evidence anchors as written. */
  evidence: string[];
  /** Verification steps. */
  verify: string[];
  /** Last independent confirmation (YYYY-MM-DD), or null when missing. */
  lastConfirmed: string | null;
  /** `independent` or `primed`, or null when missing. */
  provenance: string | null;
  /** Claim status, `observed` unless set. */
  status: string;
  /** Search score that ranked it. */
  score: number;
  /** What the agent should know: anchor drift, a failed verification, disputed, near decay, contradictions. */
  warnings: string[];
};

/** An entry not given to the agent, and why. */
export type Withheld = {
  /** Entry id. */
  id: string;
  /** Why: withheld by the holdout policy, sitting out a review away from its files while due for holdout, or past its decay limit. */
  reason: string;
};

/** A candidate that was not injected, with `explain`. */
export type NotInjected = {
  /** Entry id. */
  id: string;
  /** Entry file, repo-relative. */
  path: string;
  /** Its search score. */
  score: number;
  /** Why it was not injected: below the relevance floor, past the cap, or withheld. */
  reasons: string[];
};

/** The Knowledge Context for one agent in one run. */
export type InjectResult = {
  /** The run id. */
  run: string;
  /** The agent name. */
  agent: string;
  /** Injected entries, best first (at most the agent's free slots). */
  entries: ContextEntry[];
  /** Tokens of `markdown`, counted with `tokenizer`. */
  tokens: number;
  /** The tokenizer that counted `tokens`: `o200k_base` (gpt-tokenizer). */
  tokenizer: string;
  /** The budget this call was held to. */
  maxTokens: number;
  /** Same as `tokens` (kept for callers of earlier versions, where it was characters / 4). */
  estimatedTokens: number;
  /** Slots left for this agent in this run after this call; null when the ledger could not be read (the run's injections are unknown; a warning says why). */
  remaining: number | null;
  /** Entries withheld from this agent by the holdout policy (recorded as `held-out` events unless dryRun), or skipped: due for holdout in a review away from their files, or past their decay limit. */
  heldOut: Withheld[];
  /** The "Knowledge Context" block for the prompt; empty when no entry was injected. */
  markdown: string;
  /** Why fewer entries came than asked (budget, gate, unknown agent, search unavailable); never thrown. */
  warnings: string[];
  /** With `explain`: the best candidates that were not injected and why (below the floor, past the cap, withheld). */
  belowFloor?: NotInjected[];
};
