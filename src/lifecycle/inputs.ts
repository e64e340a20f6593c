/** Library inputs validated like CLI inputs: a bad call is an error that says what to pass, never a silent no-op. */
import * as z from "zod";
import { agentNameProblem } from "../entry/agent-name.js";
import { CairnError } from "../errors.js";
import { runIdProblem } from "../ledger/run-id.js";
import type { Assert, Equals, KnownKeys } from "../types/equals.js";
import type { InjectInput } from "../types/inject.js";
import type { CompoundFinding, Finding } from "../types/review.js";
import type { CompoundCandidate } from "./compound.js";


/** A run id: printable, one line, no hidden characters, no white space at either end (see runIdProblem). */
export const runSchema = z.string({ error: 'run must be a string, e.g. "pr-123"' }).superRefine((s, ctx) => {
  const problem = runIdProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: `run ${problem}, e.g. "pr-123"` });
});
/** An agent name: printable, and not blank once what shows nothing is dropped (see `agentKey`). */
const agentName = (what: string, example = "") => z.string({ error: `${what} must be a string${example}` }).superRefine((s, ctx) => {
  const problem = agentNameProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: `${what} ${problem}${example}` });
});
export const agentSchema = agentName("agent", ', e.g. "security"');

export const injectInputSchema = z
  .object({
    run: runSchema,
    agent: agentSchema,
    keywords: z.array(z.string()).optional(),
    summary: z.string().optional(),
    changedFiles: z.array(z.string()).optional(),
    diff: z.string().optional(),
    explain: z.boolean().optional(),
    limit: z.number().int().min(0).optional(),
    maxTokens: z.number().int().min(1).optional(),
    includeStatuses: z.array(z.enum(["disputed", "superseded"])).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict();

const notBlank = (what: string) => z.string().refine((s) => s.trim().length > 0, `${what} must not be empty`);

/** One finding of `recordFindings` / `cairn record` (unknown keys are kept, not refused: orchestrators add their own). */
export const findingSchema = z
  .object({
    agent: agentName("agent"),
    text: notBlank("text"),
    entry: z.string().min(1).optional(),
    evidence: z.union([z.string(), z.array(z.string())]).optional(),
    verify: z.union([z.string(), z.array(z.string())]).optional(),
  })
  .passthrough();
export const recordInputSchema = z.object({ findings: z.array(findingSchema) }).passthrough();

const list = z.union([z.string().min(1).transform((s) => [s]), z.array(z.string())]);
/** One synthesised finding of `compound` / `cairn compound`: lists normalised, `durable` defaulted to false. */
export const compoundFindingSchema = z
  .object({
    text: z.string().refine((s) => s.trim().length > 0, "text must describe the finding"),
    agents: z.array(agentName("an agent name")).min(1, "agents must name at least one agent"),
    evidence: list.default([]),
    verify: list.default([]),
    durable: z.boolean().default(false),
    title: z.string().optional(),
    tags: z.array(z.string()).optional(),
  })
  .passthrough();
export const compoundInputSchema = z.object({ findings: z.array(compoundFindingSchema) }).passthrough();

// The plain public types (src/types/) and these schemas agree in both directions; tsc fails if one changes alone.
type _InjectInputMatches = Assert<Equals<z.output<typeof injectInputSchema>, InjectInput>>;
type _FindingMatches = Assert<Equals<KnownKeys<z.output<typeof findingSchema>>, Finding>>;
type _CompoundFindingMatches = Assert<Equals<KnownKeys<z.input<typeof compoundFindingSchema>>, CompoundFinding>>;
type _CompoundCandidateMatches = Assert<Equals<KnownKeys<z.output<typeof compoundFindingSchema>>, CompoundCandidate>>;

/** Parse `value` with `schema` or throw a USAGE error listing the problems (with their paths) and an example. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string, example: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `  ${issue.path.length ? issue.path.join(".") : "(top level)"}: ${issue.message}`)
    .join("\n");
  throw new CairnError("USAGE", `${what} is invalid:\n${problems}\nexpected ${example}`);
}

export function parseRecordInput(run: unknown, findings: unknown): { run: string; findings: Finding[] } {
  return {
    run: parseInput(runSchema, run, "recordFindings: the run id", 'recordFindings("pr-123", [{ agent: "security", text: "…" }])'),
    findings: parseInput(z.array(findingSchema), findings, "recordFindings: the findings", '[{ agent: "security", text: "…", entry?: "known-entry-id" }]'),
  };
}

export function parseCompoundInput(run: unknown, findings: unknown): { run: string; findings: CompoundCandidate[] } {
  return {
    run: parseInput(runSchema, run, "compound: the run id", 'compound("pr-123", [{ text: "…", agents: ["a", "b"], evidence: ["src/x.ts:1"], verify: ["…"], durable: true }])'),
    findings: parseInput(z.array(compoundFindingSchema), findings, "compound: the findings", '[{ text: "…", agents: ["a", "b"], evidence: ["src/x.ts:1"], verify: ["…"], durable: true }]'),
  };
}
