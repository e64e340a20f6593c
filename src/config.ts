/** cairn.config.json: every key optional, validated with clear errors, zero-config works. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { validateRuleSettings, type RuleSetting } from "./check/rules/registry.js";
import { CairnError } from "./errors.js";
import { didYouMean } from "./text/suggest.js";
import { assertContained } from "./store/contain.js";

export const CONFIG_FILE = "cairn.config.json";

const embedderSchema = z.discriminatedUnion("provider", [
  /** The bundled offline Universal Sentence Encoder lite (512 dims). */
  z.object({ provider: z.literal("use-lite") }).strict(),
  /** A transformers.js (ONNX) sentence-embedding model from a local directory or a hub id. */
  z
    .object({
      provider: z.literal("transformers"),
      model: z.string().min(1),
      path: z.string().min(1).optional(),
      pooling: z.enum(["mean", "cls"]).optional(),
      quantized: z.boolean().optional(),
      allowRemote: z.boolean().optional(),
    })
    .strict(),
  /** Lexical-only retrieval: no embeddings at all. */
  z.object({ provider: z.literal("none") }).strict(),
]);

export const configSchema = z
  .object({
    knowledgeDir: z.string().min(1).optional(),
    decayAfterRuns: z.number().int().min(1).max(10_000).optional(),
    maxPerAgent: z.number().int().min(1).max(100).optional(),
    nearDecayRatio: z.number().min(0).max(1).optional(),
    matchThreshold: z.number().min(0).max(1).optional(),
    duplicateThreshold: z.number().min(0).max(1).optional(),
    embedder: embedderSchema.optional(),
    repos: z.record(z.string().min(1), z.string().min(1)).optional(),
    agents: z
      .record(
        z.string().min(1, "agent names must be non-empty"),
        z.object({ domains: z.array(z.string().min(1)).optional() }).strict(),
        { error: 'expected a map of agent name → {"domains": [...]}, e.g. {"fd-performance": {"domains": ["performance"]}}' },
      )
      .optional(),
    maxInjectTokens: z.number().int().min(1).max(1_000_000).optional(),
    rules: z.record(z.string(), z.string()).optional(),
    sanitize: z
      .object({
        allowHosts: z.array(z.string().min(1)).optional(),
        denyPatterns: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type EmbedderConfig = z.infer<typeof embedderSchema>;

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

export const DEFAULT_CONFIG: CairnConfig = {
  knowledgeDir: "knowledge",
  decayAfterRuns: 10,
  maxPerAgent: 5,
  nearDecayRatio: 0.7,
  matchThreshold: 0.5,
  duplicateThreshold: 0.9,
  embedder: { provider: "use-lite" },
  allowHosts: [],
  denyPatterns: [],
  repos: {},
  agents: {},
  maxInjectTokens: 4000,
  rules: {},
};

/** Validate a parsed config object; returns the resolved config or problems with their JSON paths. */
export function resolveConfig(raw: unknown, source = CONFIG_FILE): CairnConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap(describeIssue).join("\n");
    throw new CairnError("CONFIG", `${source} is invalid:\n${problems}\nSee README "Configuration" for every key and its default.`);
  }
  const value = parsed.data;
  for (const [i, pattern] of (value.sanitize?.denyPatterns ?? []).entries()) {
    try {
      new RegExp(pattern, "iu");
    } catch (cause) {
      throw new CairnError("CONFIG", `${source}: sanitize.denyPatterns.${i} is not a valid regular expression: ${pattern}`, { cause });
    }
  }
  if (value.knowledgeDir && (path.isAbsolute(value.knowledgeDir) || value.knowledgeDir.split(/[\\/]/).includes(".."))) {
    throw new CairnError("CONFIG", `${source}: knowledgeDir must be a path inside the project (got "${value.knowledgeDir}"), e.g. "knowledge".`);
  }
  return {
    knowledgeDir: value.knowledgeDir ?? DEFAULT_CONFIG.knowledgeDir,
    decayAfterRuns: value.decayAfterRuns ?? DEFAULT_CONFIG.decayAfterRuns,
    maxPerAgent: value.maxPerAgent ?? DEFAULT_CONFIG.maxPerAgent,
    nearDecayRatio: value.nearDecayRatio ?? DEFAULT_CONFIG.nearDecayRatio,
    matchThreshold: value.matchThreshold ?? DEFAULT_CONFIG.matchThreshold,
    duplicateThreshold: value.duplicateThreshold ?? DEFAULT_CONFIG.duplicateThreshold,
    embedder: value.embedder ?? DEFAULT_CONFIG.embedder,
    allowHosts: value.sanitize?.allowHosts ?? DEFAULT_CONFIG.allowHosts,
    denyPatterns: value.sanitize?.denyPatterns ?? DEFAULT_CONFIG.denyPatterns,
    repos: value.repos ?? DEFAULT_CONFIG.repos,
    agents: value.agents ?? DEFAULT_CONFIG.agents,
    maxInjectTokens: value.maxInjectTokens ?? DEFAULT_CONFIG.maxInjectTokens,
    rules: value.rules ? validateRuleSettings(value.rules, source) : DEFAULT_CONFIG.rules,
  };
}

type Issue = z.core.$ZodIssue;

/** One line per problem; an unknown key names its closest known key (`decayAfterRun` → `decayAfterRuns`). */
function describeIssue(issue: Issue): string[] {
  const where = (path: PropertyKey[]) => (path.length ? path.map(String).join(".") : "(top level)");
  if (issue.code !== "unrecognized_keys") return [`  ${where(issue.path)}: ${issue.message}`];
  const known = knownKeysAt(configSchema, issue.path);
  return issue.keys.map((key) => `  ${where([...issue.path, key])}: unknown key.${didYouMean(key, known)}${known.length ? ` Known keys here: ${known.join(", ")}.` : ""}`);
}

/** The keys an object schema accepts at `path` (through optionals, records and discriminated unions). */
function knownKeysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  let nodes: z.ZodType[] = [schema];
  for (const step of [...path, undefined]) {
    nodes = nodes.flatMap(alternatives);
    if (step === undefined) break;
    nodes = nodes.flatMap((node): z.ZodType[] => {
      if (node instanceof z.ZodObject) return node.shape[String(step)] ? [node.shape[String(step)] as z.ZodType] : [];
      if (node instanceof z.ZodRecord) return [node.valueType as z.ZodType];
      return [];
    });
  }
  return [...new Set(nodes.flatMap((node) => (node instanceof z.ZodObject ? Object.keys(node.shape) : [])))];
}

function alternatives(node: z.ZodType): z.ZodType[] {
  if (node instanceof z.ZodOptional) return alternatives(node.unwrap() as z.ZodType);
  if (node instanceof z.ZodDiscriminatedUnion) return (node.options as z.ZodType[]).flatMap(alternatives);
  return [node];
}

/**
 * Read `cairn.config.json` under root, or the defaults when it does not exist. A leading BOM (as
 * Windows editors write) is accepted; a config reached through a link leaving the root is refused.
 */
export async function loadConfig(root: string): Promise<CairnConfig> {
  const file = path.join(root, CONFIG_FILE);
  await assertContained(root, file, `read ${CONFIG_FILE}`);
  let text: string;
  try {
    text = (await readFile(file, "utf8")).replace(/^\uFEFF/, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return DEFAULT_CONFIG;
    throw new CairnError("IO", `Cannot read ${CONFIG_FILE}: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new CairnError("CONFIG", `${CONFIG_FILE} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return resolveConfig(raw);
}
