/** The MCP tools: one zod input schema and one call into the public KnowledgeBase API each; results use the CLI's `--json` shapes. */
import * as z from "zod";
import type { KnowledgeBase } from "../knowledge-base.js";
import { compoundFindingSchema, recordInputSchema } from "../lifecycle/inputs.js";
import { agent, clean, defineTool, dryRun, paths, readOnly, run, writes, type ToolDefinition } from "./define.js";
import { ENTRY_TOOLS } from "./entry-tools.js";

export type { ToolAnnotations, ToolDefinition } from "./define.js";

const strict = z.boolean().optional().describe("refuse instead of warning when the run or an agent has no recorded injection (default false)");

const search = defineTool({
  name: "search",
  title: "Search knowledge",
  description: "Hybrid (keyword + semantic) search over the project's review knowledge entries; returns ranked entry ids, paths and scores (an entry whose id reads as an instruction to an AI agent is left out, with a warning).",
  annotations: readOnly,
  inputSchema: z.object({
    query: z.string().min(1, "query must be non-empty").describe("what to look for, in words"),
    limit: z.number().int().positive().optional().describe("maximum results (default 10)"),
    includeArchived: z.boolean().optional().describe("search archived entries too (default false)"),
    agent: agent.optional().describe("only entries meant for this agent (default: every entry)"),
    changedFiles: paths.optional().describe("changed file paths: entries anchored on them are boosted"),
    explain: z.boolean().optional().describe("include why each result ranked where it did, and the best candidates below the relevance floor with why they were cut (default false)"),
  }),
  run: async (kb, args) => {
    const response = await kb.search(args.query, {
      limit: args.limit ?? 10,
      ...(args.includeArchived ? { includeArchived: true } : {}),
      ...(args.agent ? { agent: args.agent } : {}),
      ...(args.changedFiles?.length ? { changedFiles: args.changedFiles } : {}),
      ...(args.explain ? { explain: true } : {}),
    });
    const { promptSafeSearch } = await import("./withhold.js");
    const safe = promptSafeSearch(response);
    const results = safe.results.map(({ explain, ...rest }) => (args.explain ? { ...rest, explain } : rest));
    const belowFloor = args.explain ? promptSafeSearch({ results: response.belowFloor ?? [], warnings: [] }).results : [];
    return { results, warnings: safe.warnings, mode: response.mode, ...(args.explain ? { belowFloor } : {}) };
  },
});

const inject = defineTool({
  name: "inject",
  title: "Knowledge context for an agent",
  description:
    "Get the Knowledge Context (markdown to paste into one review agent's prompt) for one agent in one run; at most maxPerAgent entries per agent per run, and the injection is recorded. Retrying the same call (its answer lost) returns the same entries and records nothing.",
  annotations: writes,
  inputSchema: z.object({
    run,
    agent,
    keywords: z.array(z.string()).optional().describe("the agent's domain keywords"),
    summary: z.string().optional().describe("summary of the document or change under review"),
    changedFiles: paths.optional().describe("changed file paths: entries anchored on them are boosted"),
    diff: z.string().optional().describe("the change as a unified diff (git diff output): changed lines and symbols are strong evidence, its code joins the query"),
    explain: z.boolean().optional().describe("also return the best candidates not injected and why (default false)"),
    limit: z.number().int().positive().optional().describe("lower the cap for this call (cannot raise maxPerAgent)"),
    includeDisputed: z.boolean().optional().describe("also inject entries whose status is disputed (default false)"),
    includeSuperseded: z.boolean().optional().describe("also inject entries whose status is superseded (default false)"),
    maxTokens: z.number().int().positive().optional().describe("token budget of the Knowledge Context in o200k_base tokens (default maxInjectTokens, 4000)"),
    dryRun: dryRun.describe("show the context without recording the injection (default false)"),
  }),
  run: async (kb, args) =>
    kb.inject({
      run: args.run,
      agent: args.agent,
      keywords: clean(args.keywords),
      ...(args.summary !== undefined ? { summary: args.summary } : {}),
      changedFiles: clean(args.changedFiles),
      ...(args.diff !== undefined ? { diff: args.diff } : {}),
      ...(args.explain ? { explain: true } : {}),
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      includeStatuses: [...(args.includeDisputed ? ["disputed" as const] : []), ...(args.includeSuperseded ? ["superseded" as const] : [])],
      ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
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
  description: "List knowledge entries with decay counter, provenance, last confirmation, confirmation counts and warnings (an entry whose id reads as an instruction to an AI agent is left out, with a warning).",
  annotations: readOnly,
  inputSchema: z.object({ all: z.boolean().optional().describe("include archived entries (default false)") }),
  run: async (kb, args) => {
    const { promptSafeStatus } = await import("./withhold.js");
    return promptSafeStatus(await kb.status(args.all ? { all: true } : {}));
  },
});

const check = defineTool({
  name: "check",
  title: "Check entries",
  description:
    "Validate knowledge entries (schema, sections, evidence anchors, ids, references, sanitization, prompt injection) and list diagnostics; `ok` says whether the check passes (errors fail; warnings too with strict).",
  annotations: readOnly,
  inputSchema: z.object({
    paths: paths.optional().describe("files or directories to check, relative to the project root (default: all entries)"),
    strict: z.boolean().optional().describe("warnings fail the check too (default false)"),
    anchors: z.boolean().optional().describe("resolve evidence anchors against the repository (default true)"),
    duplicates: z.boolean().optional().describe("also report near-duplicate entries; uses the search index and embedding model (default false)"),
  }),
  run: async (kb, args) => {
    // kb.check validates the paths exactly as the CLI does (inside the root, no link leaving it, existing).
    const report = await kb.check({ paths: clean(args.paths), anchors: args.anchors ?? true, ...(args.duplicates ? { duplicates: true } : {}) });
    const ok = report.errors === 0 && !(args.strict && report.warnings > 0);
    return { diagnostics: report.diagnostics, errors: report.errors, warnings: report.warnings, ok };
  },
});

/** Every tool the server exposes, in the order clients list them. */
export const TOOLS: readonly ToolDefinition[] = [search, inject, recordFindings, compound, status, check, ...ENTRY_TOOLS];
