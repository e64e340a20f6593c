/** cairn.config.json: every key optional, validated with clear errors, zero-config works. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { validateRuleSettings } from "./check/rules/registry.js";
import { CairnError } from "./errors.js";
import { didYouMean } from "./text/suggest.js";
import { assertContained } from "./store/contain.js";
import { CONFIG_FILE } from "./store/root.js";
import { DEFAULT_CONFIG, type AgentDeclaration, type CairnConfig, type EmbedderConfig } from "./types/config.js";
import type { Assert, Equals } from "./types/equals.js";
import { parseJson } from "./text/json.js";

export { DEFAULT_CONFIG, type AgentDeclaration, type CairnConfig, type EmbedderConfig } from "./types/config.js";

export { CONFIG_FILE };

/**
 * The vector list's ranking weight in fusion. 0 (the default): embeddings do not rank, so `index`,
 * `search` and `inject` never embed — a model earns a weight by measurement
 * (`npm run bench -- retrieval-hybrid --embedder …`).
 */
const weightSchema = z.number().min(0).max(10).optional();

const embedderSchema = z.discriminatedUnion("provider", [
  /** The bundled offline Universal Sentence Encoder lite (512 dims). */
  z.object({ provider: z.literal("use-lite"), weight: weightSchema }).strict(),
  /** A transformers.js (ONNX) sentence-embedding model from a local directory or a hub id. */
  z
    .object({
      provider: z.literal("transformers"),
      model: z.string().min(1),
      path: z.string().min(1).optional(),
      pooling: z.enum(["mean", "cls"]).optional(),
      quantized: z.boolean().optional(),
      allowRemote: z.boolean().optional(),
      weight: weightSchema,
    })
    .strict(),
  /** Lexical-only retrieval: no embeddings at all. */
  z.object({ provider: z.literal("none") }).strict(),
]);

/** The checks of every key but `sanitize`, shared by the file's schema and a library override's. */
const FIELDS = {
  knowledgeDir: z.string().min(1),
  decayAfterRuns: z.number().int().min(1).max(10_000),
  maxPerAgent: z.number().int().min(1).max(100),
  nearDecayRatio: z.number().min(0).max(1),
  matchThreshold: z.number().min(0).max(1),
  duplicateThreshold: z.number().min(0).max(1),
  holdout: z.union([z.literal("off"), z.number().min(0).max(5)], { error: 'expected "off" or a number from 0 to 5 (the share of decayAfterRuns an entry near decay may be withheld, e.g. 0.7)' }),
  embedder: embedderSchema,
  repos: z.record(z.string().min(1), z.string().min(1)),
  agents: z.record(
    z.string().min(1, "agent names must be non-empty"),
    z.object({ domains: z.array(z.string().min(1)).optional() }).strict(),
    { error: 'expected a map of agent name → {"domains": [...]}, e.g. {"fd-performance": {"domains": ["performance"]}}' },
  ),
  maxInjectTokens: z.number().int().min(1).max(1_000_000),
  rules: z.record(z.string(), z.string()),
};
const hostList = z.array(z.string().min(1));

const configSchema = z
  .object({
    ...z.object(FIELDS).partial().shape,
    sanitize: z.object({ allowHosts: hostList.optional(), denyPatterns: hostList.optional() }).strict().optional(),
  })
  .strict();

/** A library `config` override: the resolved shape (`allowHosts`, `denyPatterns` at the top level), every key optional. */
const overrideSchema = z.object({ ...z.object(FIELDS).partial().shape, allowHosts: hostList.optional(), denyPatterns: hostList.optional() }).strict();

// The plain public types (src/types/config.ts) and these schemas agree; tsc fails if one changes alone.
type _EmbedderConfigMatches = Assert<Equals<z.output<typeof embedderSchema>, EmbedderConfig>>;
type _AgentDeclarationMatches = Assert<Equals<z.output<typeof FIELDS.agents>[string], AgentDeclaration>>;

function problemsOf(error: z.ZodError, source: string, schema: z.ZodType): CairnError {
  const problems = error.issues.flatMap((issue) => describeIssue(issue, schema)).join("\n");
  return new CairnError("CONFIG", `${source} is invalid:\n${problems}\nSee README "Configuration" for every key and its default.`);
}

/** Checks beyond the schema: patterns compile, the knowledge dir stays inside the project, rule ids exist. */
function checkResolved(config: CairnConfig, source: string, keys: { denyPatterns: string; knowledgeDir: string }): CairnConfig {
  for (const [i, pattern] of config.denyPatterns.entries()) {
    try {
      new RegExp(pattern, "iu");
    } catch (cause) {
      throw new CairnError("CONFIG", `${source}: ${keys.denyPatterns}.${i} is not a valid regular expression: ${pattern}`, { cause });
    }
  }
  // A NUL makes every file system call on the path throw (ERR_INVALID_ARG_VALUE, deep inside a command): said here.
  const paths: Array<[string, string | undefined]> = [
    [keys.knowledgeDir, config.knowledgeDir],
    ...Object.entries(config.repos).map(([name, dir]): [string, string] => [`repos.${name}`, dir]),
    ["embedder.path", config.embedder.provider === "transformers" ? config.embedder.path : undefined],
  ];
  for (const [key, value] of paths) {
    if (value?.includes("\0")) throw new CairnError("CONFIG", `${source}: ${key} holds a NUL character (got ${JSON.stringify(value)}); expected a directory path, e.g. "knowledge".`);
  }
  for (const [name, dir] of Object.entries(config.repos)) {
    if (path.isAbsolute(dir)) throw new CairnError("CONFIG", `${source}: repos.${name} must be a checkout beside this repository, relative to the project root (got "${dir}"), e.g. "../${name}".`);
  }
  if (leavesProject(config.knowledgeDir)) {
    throw new CairnError("CONFIG", `${source}: ${keys.knowledgeDir} must be a path inside the project (got "${config.knowledgeDir}"), e.g. "knowledge".`);
  }
  return { ...config, rules: validateRuleSettings(config.rules, source) };
}

/** True when a `knowledgeDir` would point outside the project (absolute, or through `..`): the loader refuses it. */
function leavesProject(dir: string): boolean {
  return path.isAbsolute(dir) || dir.split(/[\\/]/).includes("..");
}

/**
 * The `knowledgeDir` a cairn.config.json text names, read as `loadConfig` reads it (BOM dropped, the same JSON parser,
 * the same path rules), without validating the other keys: `cairn diff` reads it from each revision's own tree, where
 * keys this version does not know may be fine. Undefined text (no file) is the default.
 */
export function knowledgeDirOf(text: string | undefined): { value: string } | { problem: string } {
  if (text === undefined) return { value: DEFAULT_CONFIG.knowledgeDir };
  let raw: unknown;
  try {
    raw = parseJson(text.replace(/^\uFEFF/, ""));
  } catch (cause) {
    return { problem: `${CONFIG_FILE} is not valid JSON: ${(cause as Error).message}` };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { problem: `${CONFIG_FILE} is not a JSON object` };
  const dir = (raw as Record<string, unknown>).knowledgeDir;
  if (dir === undefined) return { value: DEFAULT_CONFIG.knowledgeDir };
  if (typeof dir !== "string" || dir === "" || dir.includes("\0") || leavesProject(dir)) {
    return { problem: `${CONFIG_FILE}: knowledgeDir must be a directory path inside the project (got ${JSON.stringify(dir)})` };
  }
  return { value: dir };
}

/** Validate a parsed config object; returns the resolved config or problems with their JSON paths. */
export function resolveConfig(raw: unknown, source = CONFIG_FILE): CairnConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw problemsOf(parsed.error, source, configSchema);
  const { sanitize, ...value } = parsed.data;
  const defined = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<CairnConfig>;
  const resolved: CairnConfig = {
    ...DEFAULT_CONFIG,
    ...defined,
    allowHosts: sanitize?.allowHosts ?? DEFAULT_CONFIG.allowHosts,
    denyPatterns: sanitize?.denyPatterns ?? DEFAULT_CONFIG.denyPatterns,
  };
  return checkResolved(resolved, source, { denyPatterns: "sanitize.denyPatterns", knowledgeDir: "knowledgeDir" });
}

/** Apply a library `config` override on top of `base`, validated exactly like cairn.config.json (`decayAfterRuns: 0`, `maxPerAgent: "7"` are errors). */
export function applyConfigOverride(base: CairnConfig, override: unknown, source = "the `config` option of openKnowledgeBase"): CairnConfig {
  if (override === undefined) return base;
  const parsed = overrideSchema.safeParse(override);
  if (!parsed.success) throw problemsOf(parsed.error, source, overrideSchema);
  const defined = Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)) as Partial<CairnConfig>;
  return checkResolved({ ...base, ...defined }, source, { denyPatterns: "denyPatterns", knowledgeDir: "knowledgeDir" });
}

/** The embedder's ranking weight (config `embedder.weight`): 0 means embeddings never rank and nothing is embedded for search. */
export function vectorWeightOf(config: Pick<CairnConfig, "embedder">): number {
  return config.embedder.provider === "none" ? 0 : (config.embedder.weight ?? 0);
}

/** Runs in which an entry one injected run from decay may be withheld (0 when holdout is off). */
export function holdoutRuns(config: Pick<CairnConfig, "holdout" | "decayAfterRuns">): number {
  // toFixed: 0.7 × 10 is 7.000000000000001 in floating point, which is 7 runs, not 8.
  return config.holdout === "off" ? 0 : Math.ceil(Number((config.holdout * config.decayAfterRuns).toFixed(6)));
}

type Issue = z.core.$ZodIssue;

/** One line per problem; an unknown key names its closest known key (`decayAfterRun` → `decayAfterRuns`). */
function describeIssue(issue: Issue, schema: z.ZodType): string[] {
  const where = (path: PropertyKey[]) => (path.length ? path.map(String).join(".") : "(top level)");
  if (issue.code !== "unrecognized_keys") return [`  ${where(issue.path)}: ${issue.message}`];
  const known = knownKeysAt(schema, issue.path);
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
    raw = parseJson(text);
  } catch (cause) {
    throw new CairnError("CONFIG", `${CONFIG_FILE} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return resolveConfig(raw);
}
