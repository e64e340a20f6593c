/** The MCP tools: one zod input schema and one call into the public KnowledgeBase API each; results use the CLI's `--json` shapes. */
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { CairnError } from "../errors.js";
import type { KnowledgeBase } from "../knowledge-base.js";
import { compoundFindingSchema } from "../lifecycle/compound.js";
import { recordInputSchema } from "../lifecycle/record.js";

/** Hints an MCP client may show or use to decide whether to ask before calling. */
export type ToolAnnotations = { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

export type ToolDefinition = {
  name: string;
  title: string;
  /** One line an orchestrator's LLM reads to decide when to call the tool. */
  description: string;
  inputSchema: z.ZodObject;
  annotations: ToolAnnotations;
  /** Run the tool; `args` has already been parsed with `inputSchema` by the MCP server. */
  run: (kb: KnowledgeBase, args: unknown) => Promise<Record<string, unknown>>;
};

/** Tie a schema to its handler so the handler sees the parsed type. */
function defineTool<S extends z.ZodObject>(tool: Omit<ToolDefinition, "inputSchema" | "run"> & { inputSchema: S; run: (kb: KnowledgeBase, args: z.output<S>) => Promise<Record<string, unknown>> }): ToolDefinition {
  // The SDK validates the arguments against `inputSchema` and passes the parsed value.
  return { ...tool, run: (kb, args) => tool.run(kb, args as z.output<S>) };
}

const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const run = z.string().min(1, "run must be the run id chosen by the orchestrator, e.g. pr-123-1").describe("run id chosen by the orchestrator (e.g. the PR number and attempt)");
const agent = z.string().min(1, "agent must be a non-empty agent name").describe("agent name, e.g. security");
const paths = z.array(z.string().min(1));
const dryRun = z.boolean().optional().describe("compute the result without writing files or ledger events (default false)");
const strict = z.boolean().optional().describe("refuse instead of warning when the run or an agent has no recorded injection (default false)");

const search = defineTool({
  name: "search",
  title: "Search knowledge",
  description: "Hybrid (keyword + semantic) search over the project's review knowledge entries; returns ranked entry ids, paths and scores.",
  annotations: readOnly,
  inputSchema: z.object({
    query: z.string().min(1, "query must be non-empty").describe("what to look for, in words"),
    limit: z.number().int().positive().optional().describe("maximum results (default 10)"),
    includeArchived: z.boolean().optional().describe("search archived entries too (default false)"),
    agent: agent.optional().describe("only entries meant for this agent (default: every entry)"),
    changedFiles: paths.optional().describe("changed file paths: entries anchored on them are boosted"),
    explain: z.boolean().optional().describe("include why each result ranked where it did (default false)"),
  }),
  run: async (kb, args) => {
    const response = await kb.search(args.query, {
      limit: args.limit ?? 10,
      ...(args.includeArchived ? { includeArchived: true } : {}),
      ...(args.agent ? { agent: args.agent } : {}),
      ...(args.changedFiles?.length ? { changedFiles: args.changedFiles } : {}),
    });
    const results = response.results.map(({ explain, ...rest }) => (args.explain ? { ...rest, explain } : rest));
    return { results, warnings: response.warnings, mode: response.mode };
  },
});

const inject = defineTool({
  name: "inject",
  title: "Knowledge context for an agent",
  description:
    "Get the Knowledge Context (markdown to paste into one review agent's prompt) for one agent in one run; at most maxPerAgent entries per agent per run, and the injection is recorded.",
  annotations: writes,
  inputSchema: z.object({
    run,
    agent,
    keywords: z.array(z.string()).optional().describe("the agent's domain keywords"),
    summary: z.string().optional().describe("summary of the document or change under review"),
    changedFiles: paths.optional().describe("changed file paths: entries anchored on them are boosted"),
    limit: z.number().int().positive().optional().describe("lower the cap for this call (cannot raise maxPerAgent)"),
    dryRun: dryRun.describe("show the context without recording the injection (default false)"),
  }),
  run: async (kb, args) =>
    kb.inject({
      run: args.run,
      agent: args.agent,
      keywords: clean(args.keywords),
      ...(args.summary !== undefined ? { summary: args.summary } : {}),
      changedFiles: clean(args.changedFiles),
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      ...(args.dryRun ? { dryRun: true } : {}),
    }),
});

const recordFindings = defineTool({
  name: "record_findings",
  title: "Record a run's findings",
  description:
    "After a review run, report each agent's findings: findings matching an entry (or citing its id in `entry`) confirm it; independent re-discoveries refresh it, primed ones only count; then stale entries decay.",
  annotations: writes,
  inputSchema: recordInputSchema.extend({
    run,
    findings: recordInputSchema.shape.findings.describe("each agent's findings; set `entry` to an entry id when the finding restates that entry"),
    dryRun,
    strict,
  }),
  run: async (kb, args) => kb.recordFindings(args.run, args.findings, { dryRun: args.dryRun ?? false, strict: args.strict ?? false }),
});

const compound = defineTool({
  name: "compound",
  title: "Compound converging findings",
  description:
    "After a review run, turn synthesized findings flagged independently by 2+ agents (durable, with evidence anchors and verify steps) into new knowledge entries, or restore matching archived ones.",
  annotations: writes,
  inputSchema: z.object({
    run,
    findings: z.array(compoundFindingSchema).describe("synthesized findings: `agents` lists every agent that flagged it; `durable` is true for lasting patterns, not one-off bugs"),
    dryRun,
    strict,
  }),
  run: async (kb, args) => kb.compound(args.run, args.findings, { dryRun: args.dryRun ?? false, strict: args.strict ?? false }),
});

const status = defineTool({
  name: "status",
  title: "Knowledge status",
  description: "List knowledge entries with decay counter, provenance, last confirmation, confirmation counts and warnings.",
  annotations: readOnly,
  inputSchema: z.object({ all: z.boolean().optional().describe("include archived entries (default false)") }),
  run: async (kb, args) => kb.status(args.all ? { all: true } : {}),
});

const check = defineTool({
  name: "check",
  title: "Check entries",
  description: "Validate knowledge entries (schema, sections, evidence anchors, ids, references, sanitization, prompt injection) and list diagnostics.",
  annotations: readOnly,
  inputSchema: z.object({ paths: paths.optional().describe("files or directories to check, relative to the project root (default: all entries)") }),
  run: async (kb, args) => {
    const wanted = clean(args.paths);
    for (const p of wanted) {
      const exists = await stat(path.resolve(kb.layout.root, p)).then(() => true, () => false);
      if (!exists) throw new CairnError("USAGE", `no such file or directory: ${p} (paths are relative to ${kb.layout.root})`);
    }
    const report = await kb.check({ paths: wanted });
    return { diagnostics: report.diagnostics, errors: report.errors, warnings: report.warnings };
  },
});

/** Every tool the server exposes, in the order clients list them. */
export const TOOLS: readonly ToolDefinition[] = [search, inject, recordFindings, compound, status, check];

function clean(values: string[] | undefined): string[] {
  return (values ?? []).map((v) => v.trim()).filter(Boolean);
}
