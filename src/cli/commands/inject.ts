import { CairnError } from "../../errors.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { readInputText, unreadableInput } from "../input.js";
import { EXIT, json, list, type Io } from "../output.js";

type Opts = {
  run: string;
  agent: string;
  keywords?: string[];
  summary?: string;
  summaryFile?: string;
  changedFiles?: string[];
  diff?: string;
  explain?: boolean;
  limit?: number;
  maxTokens?: number;
  format: "markdown" | "json";
  dryRun?: boolean;
  includeDisputed?: boolean;
  includeSuperseded?: boolean;
};

export async function inject(kb: KnowledgeBase, io: Io, opts: Opts): Promise<number> {
  if (opts.summary !== undefined && opts.summaryFile !== undefined) throw new CairnError("USAGE", "give either --summary or --summary-file, not both");
  let summary = opts.summary;
  if (opts.summaryFile !== undefined) {
    try {
      summary = await readInputText(io, opts.summaryFile);
    } catch (cause) {
      throw new CairnError("USAGE", `cannot read --summary-file: ${unreadableInput(io, opts.summaryFile, cause, "a text file with the change's summary, or - for stdin")}`, { cause });
    }
  }
  if (opts.diff === "-" && opts.summaryFile === "-") throw new CairnError("USAGE", "--diff - and --summary-file - both read stdin; give one of them as a file");
  let diff: string | undefined;
  if (opts.diff !== undefined) {
    try {
      // A diff carries its files' bytes, in whatever encoding they are: never refused for it.
      diff = await readInputText(io, opts.diff, { lenient: true });
    } catch (cause) {
      throw new CairnError("USAGE", `cannot read --diff: ${unreadableInput(io, opts.diff, cause, "a unified diff file (git diff > pr.diff) or - for stdin")}`, { cause });
    }
  }
  const result = await kb.inject({
    run: opts.run,
    agent: opts.agent,
    keywords: list(opts.keywords),
    ...(summary !== undefined ? { summary } : {}),
    changedFiles: list(opts.changedFiles),
    ...(diff !== undefined ? { diff } : {}),
    ...(opts.explain ? { explain: true } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
    includeStatuses: [...(opts.includeDisputed ? ["disputed" as const] : []), ...(opts.includeSuperseded ? ["superseded" as const] : [])],
    ...(opts.dryRun ? { dryRun: true } : {}),
  });
  for (const w of result.warnings) io.err(`warning: ${w}`);
  for (const h of result.heldOut) io.err(`withheld ${h.id}: ${h.reason}${opts.dryRun ? " (dry run: not recorded)" : ""}`);
  if (opts.format === "json") {
    const { markdown: _markdown, ...rest } = result;
    json(io, rest);
  } else if (result.markdown) {
    io.out(result.markdown);
    io.err(`(${result.entries.length} entr${result.entries.length === 1 ? "y" : "ies"}, ${result.tokens} tokens (${result.tokenizer}) of ${result.maxTokens}; ${result.remaining} slot(s) left for ${result.agent} in run ${result.run}${opts.dryRun ? "; dry run: not recorded" : ""})`);
  } else {
    // A warning (unknown agent, cap reached, search unavailable…) is the reason; without one, the floor is.
    io.err(result.warnings.length ? "(nothing injected for this agent: see the warning above)" : "(no knowledge above the relevance floor for this agent; nothing injected)");
  }
  // The explanation goes to stderr so the Knowledge Context on stdout can be pasted into a prompt as is.
  if (opts.explain && opts.format !== "json") {
    const below = result.belowFloor ?? [];
    io.err(below.length ? "not injected:" : "not injected: no other candidates matched");
    for (const b of below) io.err(`- ${b.id} (${b.path}): ${b.reasons.join("; ")}`);
  }
  return EXIT.ok;
}
