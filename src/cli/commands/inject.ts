import { readFile } from "node:fs/promises";
import { CairnError } from "../../errors.js";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { readStdin } from "../input.js";
import { EXIT, json, list, type Io } from "../output.js";

type Opts = {
  run: string;
  agent: string;
  keywords?: string[];
  summary?: string;
  summaryFile?: string;
  changedFiles?: string[];
  limit?: number;
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
      summary = opts.summaryFile === "-" ? await readStdin() : await readFile(opts.summaryFile, "utf8");
    } catch (cause) {
      throw new CairnError("USAGE", `cannot read --summary-file ${opts.summaryFile}: ${(cause as Error).message}`, { cause });
    }
  }
  const result = await kb.inject({
    run: opts.run,
    agent: opts.agent,
    keywords: list(opts.keywords),
    ...(summary !== undefined ? { summary } : {}),
    changedFiles: list(opts.changedFiles),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    includeStatuses: [...(opts.includeDisputed ? ["disputed" as const] : []), ...(opts.includeSuperseded ? ["superseded" as const] : [])],
    ...(opts.dryRun ? { dryRun: true } : {}),
  });
  for (const w of result.warnings) io.err(`warning: ${w}`);
  for (const h of result.heldOut) io.err(`held out ${h.id}: ${h.reason}${opts.dryRun ? " (dry run: not recorded)" : ""}`);
  if (opts.format === "json") {
    const { markdown: _markdown, ...rest } = result;
    json(io, rest);
  } else if (result.markdown) {
    io.out(result.markdown);
    io.err(`(${result.entries.length} entr${result.entries.length === 1 ? "y" : "ies"}, ~${result.estimatedTokens} tokens; ${result.remaining} slot(s) left for ${result.agent} in run ${result.run}${opts.dryRun ? "; dry run: not recorded" : ""})`);
  } else {
    io.err("(no knowledge above the relevance floor for this agent; nothing injected)");
  }
  return EXIT.ok;
}
