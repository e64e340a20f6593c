/** How an MCP tool is defined: a zod input schema tied to a typed handler that makes one call into the KnowledgeBase. */
import * as z from "zod";
import type { KnowledgeBase } from "../knowledge-base.js";

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
export function defineTool<S extends z.ZodObject>(tool: Omit<ToolDefinition, "inputSchema" | "run"> & { inputSchema: S; run: (kb: KnowledgeBase, args: z.output<S>) => Promise<Record<string, unknown>> }): ToolDefinition {
  // The SDK validates the arguments against `inputSchema` and passes the parsed value.
  return { ...tool, run: (kb, args) => tool.run(kb, args as z.output<S>) };
}

export const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const run = z.string().min(1, "run must be the run id chosen by the orchestrator, e.g. pr-123-1").describe("run id chosen by the orchestrator (e.g. the PR number and attempt)");
export const agent = z.string().min(1, "agent must be a non-empty agent name").describe("agent name, e.g. security");
export const paths = z.array(z.string().min(1));
export const dryRun = z.boolean().optional().describe("compute the result without writing files or ledger events (default false)");
export const entryId = z.string().min(1, "id must be an entry id (the file name without .md)").describe("entry id: the file name without .md, e.g. auth-middleware-swallows-ctx-cancel");

/** Trimmed, non-empty strings of an optional list. */
export function clean(values: string[] | undefined): string[] {
  return (values ?? []).map((v) => v.trim()).filter(Boolean);
}
