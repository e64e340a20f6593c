/** MCP tools for single entries and PR review: get_entry, history, confirm, new_entry, diff, verify. One KnowledgeBase call each. */
import * as z from "zod";
import { renderDiffMarkdown } from "../diff/index.js";
import { slugify } from "../entry/render.js";
import { clean, defineTool, entryId, readOnly, writes, type ToolDefinition } from "./define.js";

const getEntry = defineTool({
  name: "get_entry",
  title: "Read one entry",
  description:
    "Read one knowledge entry by id: its file text, parsed fields (title, finding, evidence anchors, verify steps, frontmatter), its status row (decay counter, confirmations, warnings) and its problems. An unknown id returns kind not-found with close ids; an entry whose file does not parse returns kind unreadable with its path and problems; an entry whose text reads as an instruction to an AI agent (the prompt-injection rule) returns kind withheld with its path and problems, not its text.",
  annotations: readOnly,
  inputSchema: z.object({ id: entryId }),
  run: async (kb, args) => {
    const { promptSafeShow } = await import("./withhold.js");
    return promptSafeShow(await kb.show(args.id));
  },
});

const history = defineTool({
  name: "history",
  title: "Entry history",
  description:
    "An entry's history, oldest first: ledger events (injections, confirmations, archive/restore) and the git commits that touched its file. Text from outside the reviewed entry (commit authors and subjects, event actors and reasons) that reads as an instruction is withheld, with a note.",
  annotations: readOnly,
  inputSchema: z.object({ id: entryId }),
  run: async (kb, args) => {
    const result = await kb.history(args.id);
    if ("kind" in result) return result;
    const { promptSafeHistory } = await import("./withhold.js");
    return { kind: "found", ...promptSafeHistory(result) };
  },
});

const confirm = defineTool({
  name: "confirm",
  title: "Confirm an entry",
  description:
    "Mark an entry independently confirmed today (lastConfirmed → today, provenance: independent; a two-line edit) and reset its decay counter. Only for a human-checked or independently re-verified finding, never for one the agent was shown.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  inputSchema: z.object({ id: entryId }),
  run: async (kb, args) => kb.confirm(args.id),
});

const newEntry = defineTool({
  name: "new_entry",
  title: "Write a new entry",
  description:
    "Write a new knowledge entry from a finding, evidence anchors and verify steps. Refused (nothing written) without evidence or verify steps, when an anchor does not resolve, on sanitization errors (secrets, hosts, absolute paths) or when the id exists; the problems are returned.",
  annotations: writes,
  inputSchema: z.object({
    slug: z.string().min(1).optional().describe("file name without .md (default: a slug of the title or finding)"),
    finding: z.string().min(1, "finding must be 1–3 sentences stating the pattern").describe("the finding: 1–3 sentences, a generalised heuristic"),
    evidence: z.array(z.string()).min(1, "give at least one evidence anchor").describe("evidence anchors, e.g. 'src/auth.ts:47-52, handleRequest() — ctx.Err() not checked'"),
    verify: z.array(z.string()).min(1, "give at least one verification step").describe("1–3 verification steps"),
    title: z.string().optional().describe("short title"),
    tags: z.array(z.string()).optional().describe("topic tags"),
    agents: z.array(z.string()).optional().describe("agent names, globs (fd-*) or declared domains the entry is meant for (default: every agent)"),
  }),
  run: async (kb, args) =>
    kb.newEntry({
      slug: args.slug ?? slugify(args.title ?? args.finding),
      finding: args.finding,
      evidence: args.evidence,
      verify: args.verify,
      ...(args.title ? { title: args.title } : {}),
      ...(clean(args.tags).length ? { tags: clean(args.tags) } : {}),
      ...(clean(args.agents).length ? { agents: clean(args.agents) } : {}),
    }),
});

const diff = defineTool({
  name: "diff",
  title: "Knowledge diff",
  description:
    "Knowledge changes between two git revisions (added, edited, confirmed, archived, restored, retracted, renamed entries, with decay status; `problems`: ledger events the change rewrote or deleted and a knowledge directory in a git submodule, errors; a knowledge directory kept elsewhere than at BASE, a warning, with `moved` saying where): JSON plus the markdown summary for a PR comment. `BASE...HEAD` compares from the merge base, like a PR.",
  annotations: readOnly,
  inputSchema: z.object({
    base: z.string().min(1).describe("base revision, e.g. origin/main or origin/main...HEAD"),
    head: z.string().min(1).optional().describe("head revision (default: the working tree)"),
  }),
  run: async (kb, args) => {
    const result = await kb.diff(args.base, args.head);
    return { ...result, markdown: renderDiffMarkdown(result) };
  },
});

/** The entry and review tools, in the order clients list them (after the review-loop tools). */
const verify = defineTool({
  name: "verify",
  title: "Run verification steps",
  description:
    "Run the mechanical verify steps of entries (a pattern in backticks plus a path or glob: searched in-process over the repository's tracked files, never a shell) and record one verification result per entry (passed / failed / not-mechanical). A failed step usually means the pattern is gone (fixed): the entry is flagged for human review.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  inputSchema: z.object({
    ids: z.array(entryId).optional().describe("entry ids to verify (default: every active entry)"),
    dryRun: z.boolean().optional().describe("run the steps without recording results (default false)"),
  }),
  run: async (kb, args) => {
    const report = await kb.verify({ ids: clean(args.ids), ...(args.dryRun ? { dryRun: true } : {}) });
    return "kind" in report ? report : { kind: "verified", ...report };
  },
});

export const ENTRY_TOOLS: readonly ToolDefinition[] = [getEntry, history, confirm, newEntry, diff, verify];
