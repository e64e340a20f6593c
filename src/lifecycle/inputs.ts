/** Library inputs validated like CLI inputs: a bad call is an error that says what to pass, never a silent no-op. */
import { z } from "zod";
import { CairnError } from "../errors.js";
import { compoundFindingSchema, type CompoundFinding } from "./compound.js";
import { findingSchema, type Finding } from "./record.js";

const nonBlank = (what: string, example: string) => z.string({ error: `${what} must be a string, e.g. ${example}` }).refine((s) => s.trim().length > 0, `${what} must not be empty, e.g. ${example}`);

export const runSchema = nonBlank("run", '"pr-123"');
export const agentSchema = nonBlank("agent", '"security"');

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

export function parseCompoundInput(run: unknown, findings: unknown): { run: string; findings: CompoundFinding[] } {
  return {
    run: parseInput(runSchema, run, "compound: the run id", 'compound("pr-123", [{ text: "…", agents: ["a", "b"], evidence: ["src/x.ts:1"], verify: ["…"], durable: true }])'),
    findings: parseInput(z.array(compoundFindingSchema), findings, "compound: the findings", '[{ text: "…", agents: ["a", "b"], evidence: ["src/x.ts:1"], verify: ["…"], durable: true }]'),
  };
}
