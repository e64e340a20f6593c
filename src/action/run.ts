/**
 * The GitHub Action's one step (see action.yml): check the knowledge base, annotate problems in the
 * files the pull request changes, write the job summary (check result + `cairn diff`), optionally a
 * SARIF log and the sticky pull request comment, and set the step's outputs. Exit 1 when annotated
 * problems fail the check.
 */
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderDiffMarkdown, type KnowledgeDiff } from "../diff/index.js";
import { formatDiagnostics, processIo } from "../cli/output.js";
import { toSarif } from "../cli/sarif.js";
import { CHANGE_KINDS } from "../diff/types.js";
import { openKnowledgeBase } from "../knowledge-base.js";
import { changedFiles, type ChangedFiles } from "./changed.js";
import { upsertComment, type CommentOutcome } from "./comment.js";
import { readContext, type ActionContext } from "./context.js";
import { checkMarkdown, commentBody, fails, scopeDiagnostics } from "./report.js";

/** Run the action; resolves with the process exit code. */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const ctx = await readContext(env);
  const kb = await openKnowledgeBase({ root: ctx.root });
  const report = await kb.check({ anchors: true, ...(ctx.duplicates ? { duplicates: true } : {}) });

  const base = baseOf(ctx);
  const changed: ChangedFiles | undefined = base ? await changedFiles(kb.layout, base) : undefined;

  let diff: KnowledgeDiff | undefined;
  let diffNote: string | undefined;
  if (changed?.kind === "known") {
    try {
      diff = await kb.diff(`${changed.base.slice(0, 12)}...HEAD`);
    } catch (error) {
      diffNote = `cairn diff failed: ${(error as Error).message}`;
    }
  } else if (changed?.kind === "unknown") diffNote = `no knowledge diff: ${changed.reason}`;

  // The diff's own problems (ledger events rewritten or removed, a gating rule switched off) fail the job like check's errors in changed files.
  const scoped = scopeDiagnostics(report.diagnostics, ctx.annotate, changed, diff?.problems ?? []);
  const annotations = formatDiagnostics(scoped.annotated, "github", { errors: 0, warnings: 0 });
  if (annotations) processIo.out(annotations);
  if (scoped.note) processIo.out(`::notice title=cairn::${scoped.note.replace(/\r?\n/g, " ")}`);

  if (ctx.sarif) {
    await mkdir(path.dirname(ctx.sarif), { recursive: true });
    await writeFile(ctx.sarif, `${JSON.stringify(toSarif([...report.diagnostics, ...(diff?.problems ?? [])]), null, 2)}\n`);
  }

  const diffMarkdown = diff ? renderDiffMarkdown(diff) : diffNote ? `> ${diffNote}` : undefined;

  const check = checkMarkdown(scoped, ctx);
  if (ctx.stepSummary) await appendFile(ctx.stepSummary, `## cairn\n\n${check}\n\n${diffMarkdown ?? ""}\n`);

  let comment: CommentOutcome | undefined;
  if (ctx.comment) comment = await postComment(ctx, commentBody(diffMarkdown, check), hasChanges(diff) || scoped.annotated.length > 0);

  const errors = scoped.annotated.filter((d) => d.severity === "error").length;
  if (ctx.output) {
    const url = comment && "url" in comment ? comment.url : "";
    await appendFile(ctx.output, [`errors=${errors}`, `warnings=${scoped.annotated.length - errors}`, `sarif-file=${ctx.sarif ?? ""}`, `comment-url=${url}`].join("\n") + "\n");
  }
  return fails(scoped, ctx.strict) ? 1 : 0;
}

/** The pull request's base: its commit from the event, else `origin/<base ref>`; none outside pull requests. */
function baseOf(ctx: ActionContext): string | undefined {
  const pr = ctx.pullRequest;
  if (!pr) return undefined;
  return pr.baseSha ?? (pr.baseRef ? `origin/${pr.baseRef}` : undefined);
}

/** Worth a new comment: entry or ledger changes, the diff's problems, or its warnings (a configuration change alone is one). */
function hasChanges(diff: KnowledgeDiff | undefined): boolean {
  return Boolean(diff && (CHANGE_KINDS.some((kind) => diff[kind].length > 0) || Object.keys(diff.ledger).length > 0 || diff.problems.length > 0 || diff.warnings.length > 0));
}

async function postComment(ctx: ActionContext, body: string, worthSaying: boolean): Promise<CommentOutcome> {
  const missing = !ctx.pullRequest ? "the event is not a pull request" : !ctx.repository ? "GITHUB_REPOSITORY is not set" : !ctx.token ? "no token (input token)" : undefined;
  if (missing) {
    processIo.out(`::notice title=cairn::no pull request comment: ${missing}`);
    return { kind: "skipped", reason: missing };
  }
  const outcome = await upsertComment({ apiUrl: ctx.apiUrl, repository: ctx.repository!, pullRequest: ctx.pullRequest!.number, token: ctx.token! }, body, { createIfMissing: worthSaying });
  if (outcome.kind === "failed") processIo.out(`::warning title=cairn::cannot write the pull request comment: ${outcome.reason}`);
  else if (outcome.kind === "skipped") processIo.err(`cairn: no pull request comment (${outcome.reason})`);
  else processIo.err(`cairn: pull request comment ${outcome.kind}: ${outcome.url}`);
  return outcome;
}
