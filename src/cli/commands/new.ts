import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, formatDiagnostics, json, list, type Io } from "../output.js";

type Opts = { finding: string; evidence?: string[]; verify?: string[]; title?: string; tags?: string; agents?: string; json?: boolean };

export async function newEntry(kb: KnowledgeBase, io: Io, slug: string, opts: Opts): Promise<number> {
  const result = await kb.newEntry({
    slug,
    finding: opts.finding,
    evidence: opts.evidence ?? [],
    verify: opts.verify ?? [],
    ...(opts.title ? { title: opts.title } : {}),
    ...(opts.tags ? { tags: list(opts.tags) } : {}),
    ...(opts.agents ? { agents: list(opts.agents) } : {}),
  });
  if (opts.json) {
    json(io, result);
    return result.kind === "created" ? EXIT.ok : EXIT.failed;
  }
  if (result.kind === "refused") {
    if (typeof result.problems === "string") io.err(`cairn new: ${result.problems}. Nothing was written.`);
    else {
      const errors = result.problems.length;
      io.err(formatDiagnostics(result.problems, "human", { errors, warnings: 0 }));
      io.err("cairn new: the entry was not written; fix the problems above.");
    }
    return EXIT.failed;
  }
  io.out(`created ${result.path}`);
  if (result.warnings.length) io.err(formatDiagnostics(result.warnings, "human", { errors: 0, warnings: result.warnings.length }));
  return EXIT.ok;
}
