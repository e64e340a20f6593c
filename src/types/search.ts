/** Search: its options and results, the fusion parameters, and what a changed file contributes, as plain types. */

/** How an entry's anchors touch the change under review, most precise first. */
export type TouchLevel = "hunk" | "symbol" | "file" | "elsewhere" | "glob" | "directory";

/** Lines of the base version a hunk touches (1-based, inclusive): its removed lines and insertion points. */
export type ChangedRange = {
  /** First line. */
  start: number;
  /** Last line (inclusive). */
  end: number;
};

/** One file of a unified diff, as retrieval evidence. */
export type ChangedFile = {
  /** Path in the new version (the old path for a deletion), repo-relative, forward slashes. */
  path: string;
  /** Path in the base version when the file was renamed. */
  oldPath?: string;
  /** Changed line ranges of the base version; empty for added files and for renames without hunks. */
  ranges: ChangedRange[];
  /** Function or section names from the hunk headers (`@@ -1,2 +1,3 @@ function name(`). */
  headings: string[];
  /** The hunks' lines without their `+`/`-`/space prefix, in diff order. */
  code: string[];
};

/** Weighted reciprocal-rank fusion of the lexical, vector and changed-file lists, and the relevance floor (`SearchOptions.fusion`). */
export type FusionParams = {
  /** RRF constant k: larger flattens the rank curve. Default 60 (the usual RRF constant; with no vector weight no benchmark moves it: it only trades changed-file ranks against lexical ranks). */
  k: number;
  /** Weight of the lexical (BM25F) list. Default 1 (the reference the other weights are relative to). */
  lexicalWeight: number;
  /** Weight of the vector list for an all-prose query. Default 0: USE-lite has not earned a weight (near chance on review-clippy; on cranfield the best tuned weight gains ≤ 0.003 on the odd ids and loses Recall@5 and Hit@5 on the even ids). */
  vectorWeight: number;
  /** Scale the vector weight by the prose share of the query (`prose`) or not (`none`); matters when vectorWeight > 0. Default "prose" (at weight 0.15, ungated vectors cost review-clippy 0.009 nDCG@10). */
  vectorGate: "prose" | "none";
  /** Weight of the changed-code signal: an entry adds `anchorWeight × strength / (k + 1)`, strength by how precisely its anchors touch the change (TOUCH_STRENGTH). Default 1 (a hunk-level touch ties a lexical first place). */
  anchorWeight: number;
  /** Candidates taken from each list. Default 100. */
  depth: number;
  /**
   * A lexical hit needs evidence: the idf weight of the query terms it matches, in units of the
   * idf of a term found in a single entry, at least this much...
   * Default 1.25 (floor study, bench/retrieval-floor.ts: keeps ≥ 98% of the unfloored Hit@5 on every
   * tuning half, prose and code, plain and inject-style queries, then cuts the most). Unlike a share
   * of the query, it does not fall as queries grow: a long PR summary or a diff no longer starves the right entry.
   */
  evidenceFloor: number;
  /**
   * ...or, for a short query (at most `shortQueryWords` distinct words, e.g. an agent's keywords),
   * to hold at least this share of the idf weight of its words: in a small knowledge base one
   * matching keyword is the evidence there is. Default 0.2 (the old floor's share; the 30-run
   * simulation's keyword-only calls need it: test/e2e/simulation.test.ts). On long queries a share
   * admits entries that match common words of a long summary: it cost inject-style queries up to 11
   * points of Hit@5 kept in the floor study, so long queries must show evidence.
   */
  lexicalFloor: number;
  /** Queries of at most this many distinct words may pass by `lexicalFloor`. Default 6. */
  shortQueryWords: number;
  /** ...and a BM25F score at least this share of the best lexical score. Default 0.35 (same study: 0.5 cost prose sets up to 5% of their Hit@5). */
  relativeFloor: number;
  /** A vector hit is relevant on its own at or above this cosine, when the vector list has weight. Default 0.9 (of vector-only admissions on prose queries, 3% were relevant at 0.75, none at 0.85 and up). */
  vectorFloor: number;
};

/** Options of `search` (`inject` sets them itself). */
export type SearchOptions = {
  /** Maximum results. Default 10. */
  limit?: number;
  /** Include archived entries. Default false. */
  includeArchived?: boolean;
  /** Statuses excluded unless listed here. Default: `disputed` and `superseded` are included in search (flagged), excluded by inject. */
  excludeStatuses?: string[];
  /** Entries never returned and not counted for the relevance floor (e.g. the ones the inject gate withheld). Default none. */
  excludeIds?: readonly string[];
  /** Only entries meant for this agent: by name, glob or declared domain (entries without `agents:` match every agent). Default: no agent filter. */
  agent?: string;
  /** Changed file paths: entries whose anchors touch them are boosted. Default none. */
  changedFiles?: string[];
  /** Changed files with their hunks (from a unified diff, `parseDiffEvidence`): anchors on changed lines or symbols count as strong evidence. Default none. */
  changedHunks?: ChangedFile[];
  /** Also return the best candidates below the relevance floor, each with the reasons it was cut (`belowFloor`). Default false. */
  explain?: boolean;
  /** Only these entry ids (e.g. what one agent was shown in a run, to score a finding against each). Default: every entry. */
  ids?: ReadonlySet<string>;
  /** Drop results below the relevance floor. Default true. */
  floor?: boolean;
  /** Fusion parameters. Default: each field's default (see FusionParams). */
  fusion?: FusionParams;
  /**
   * Embed the query and report cosine similarities even when the vector list has no ranking weight
   * (finding matching and --explain read them). Default false: a zero-weight vector list is skipped,
   * which spares the query embedding (~90 ms with USE-lite) and, in a fresh process, the model load.
   */
  withVectors?: boolean;
};

/** One entry found by `search`. */
export type SearchResult = {
  /** Entry id. */
  id: string;
  /** Entry file, repo-relative. */
  path: string;
  /** Where the entry lives. */
  state: "active" | "archived";
  /** Fused score (reciprocal-rank fusion; comparable within one response only). */
  score: number;
  /** Claim status, `observed` unless set. */
  status: string;
  /** Why the entry was chosen (always filled; printed with --explain). */
  explain: {
    /** BM25F rank and score; `matched`: share of the query's idf weight matched; `evidence`: that weight in units of the idf of a term found in one entry; `relative`: score / best lexical score (always set by hybridSearch). */
    lexical?: {
      /** 1-based rank in the lexical list. */
      rank: number;
      /** BM25F score. */
      score: number;
      /** Share of the query's idf weight the entry matches. */
      matched: number;
      /** That weight in units of the idf of a term found in one entry. */
      evidence?: number;
      /** Score / best lexical score of the query. */
      relative?: number;
    };
    /** Vector rank and cosine; `weight`: the vector list's fusion weight for this query (0 when gated off; always set by hybridSearch). */
    vector?: {
      /** 1-based rank in the vector list. */
      rank: number;
      /** Cosine similarity to the query. */
      similarity: number;
      /** The vector list's fusion weight for this query. */
      weight?: number;
    };
    /** How precisely the entry's anchors touch the change (`hunk`, `symbol`, `file`, `elsewhere`, `glob`, `directory`) and the strength that adds. */
    changedFiles?: {
      /** 1-based rank in the changed-file list. */
      rank: number;
      /** How precisely the entry's anchors touch the change. */
      touch: TouchLevel;
      /** The signal's strength for that level. */
      strength: number;
    };
    /**
     * The search named changed files, the entry cites files of its own (not only globs), and none of them is among
     * the changed files (nor matched by one of its globs): it is here on its words alone. Holdout does not spend an
     * entry's last-chance test on such a review (README "Holdout").
     */
    awayFromChange?: true;
    /** Above the relevance floor (a result below it is shown only with `floor: false` or in `belowFloor`). */
    relevant: boolean;
    /** Why the entry is below the relevance floor (set on results below it). */
    cut?: string[];
  };
};

/** What `search` found. */
export type SearchResponse = {
  /** Results above the relevance floor, best first (ties broken by id). */
  results: SearchResult[];
  /** E.g. the embedding model could not be loaded (lexical only), the index was rebuilt. */
  warnings: string[];
  /** `lexical` when no embedder is configured or it failed to load. */
  mode: "hybrid" | "lexical";
  /** With `explain`: the best candidates below the relevance floor, best first, each with `explain.cut`. */
  belowFloor?: SearchResult[];
};
