/**
 * What a GitHub Actions job tells the action: the environment variables GitHub sets, the inputs
 * `action.yml` passes as `CAIRN_*` variables, and the event payload. Validated here, at the edge.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { CairnError } from "../errors.js";

/** Every variable the action reads: `action.yml` must pass each `CAIRN_*` one (a test holds it to that). */
export const ACTION_INPUTS = {
  CAIRN_ROOT: "root",
  CAIRN_ANNOTATE: "annotate",
  CAIRN_STRICT: "strict",
  CAIRN_DUPLICATES: "duplicates",
  CAIRN_COMMENT: "comment",
  CAIRN_SARIF: "sarif",
  GITHUB_TOKEN: "token",
} as const;

/** Which problems become annotations (and fail the job): those in files the pull request changes, or all. */
export type AnnotateScope = "changed" | "all";

export type ActionContext = {
  /** Absolute project root (the workspace joined with the `root` input). */
  root: string;
  annotate: AnnotateScope;
  strict: boolean;
  duplicates: boolean;
  /** Post or update the sticky pull request comment. */
  comment: boolean;
  /** Where to write the SARIF log (absolute), or undefined. */
  sarif: string | undefined;
  /** The pull request, when the event is one. */
  pullRequest: { number: number; baseSha: string | undefined; baseRef: string | undefined } | undefined;
  /** `owner/repo`. */
  repository: string | undefined;
  apiUrl: string;
  token: string | undefined;
  /** Files the job summary and outputs are appended to; undefined outside GitHub Actions. */
  stepSummary: string | undefined;
  output: string | undefined;
};

const bool = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const value = (v ?? "").trim().toLowerCase();
      if (value === "" || value === "false") return false;
      if (value === "true") return true;
      ctx.addIssue({ code: "custom", message: `input ${name} must be true or false (got "${v}")` });
      return z.NEVER;
    });

const envSchema = z.object({
  GITHUB_WORKSPACE: z.string().optional(),
  GITHUB_EVENT_PATH: z.string().optional(),
  GITHUB_STEP_SUMMARY: z.string().optional(),
  GITHUB_OUTPUT: z.string().optional(),
  GITHUB_REPOSITORY: z.string().regex(/^[^/\s]+\/[^/\s]+$/, "GITHUB_REPOSITORY must be owner/repo").optional(),
  GITHUB_API_URL: z.string().url("GITHUB_API_URL must be a URL").optional(),
  GITHUB_BASE_REF: z.string().optional(),
  GITHUB_TOKEN: z.string().optional(),
  CAIRN_ROOT: z.string().optional(),
  CAIRN_ANNOTATE: z
    .string()
    .optional()
    .transform((v) => (v ?? "").trim() || "changed")
    .pipe(z.enum(["changed", "all"], { error: 'input annotate must be "changed" or "all"' })),
  CAIRN_STRICT: bool("strict"),
  CAIRN_DUPLICATES: bool("duplicates"),
  CAIRN_COMMENT: bool("comment"),
  CAIRN_SARIF: z.string().optional(),
});

const eventSchema = z.object({
  pull_request: z
    .object({
      number: z.number().int().positive(),
      base: z.object({ sha: z.string().optional(), ref: z.string().optional() }).partial().optional(),
    })
    .optional(),
});

/** Read the context from `env` (default `process.env`); bad inputs are a USAGE error naming the input. */
export async function readContext(env: NodeJS.ProcessEnv = process.env): Promise<ActionContext> {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new CairnError("USAGE", `cairn action: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  const e = parsed.data;
  const workspace = path.resolve(e.GITHUB_WORKSPACE ?? process.cwd());
  const event = e.GITHUB_EVENT_PATH ? await readEvent(e.GITHUB_EVENT_PATH) : {};
  const pr = event.pull_request;
  const blank = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
  return {
    root: path.resolve(workspace, blank(e.CAIRN_ROOT) ?? "."),
    annotate: e.CAIRN_ANNOTATE,
    strict: e.CAIRN_STRICT,
    duplicates: e.CAIRN_DUPLICATES,
    comment: e.CAIRN_COMMENT,
    sarif: blank(e.CAIRN_SARIF) ? path.resolve(workspace, e.CAIRN_SARIF!.trim()) : undefined,
    pullRequest: pr ? { number: pr.number, baseSha: blank(pr.base?.sha), baseRef: blank(pr.base?.ref) ?? blank(e.GITHUB_BASE_REF) } : undefined,
    repository: e.GITHUB_REPOSITORY,
    apiUrl: (e.GITHUB_API_URL ?? "https://api.github.com").replace(/\/+$/, ""),
    token: blank(e.GITHUB_TOKEN),
    stepSummary: blank(e.GITHUB_STEP_SUMMARY),
    output: blank(e.GITHUB_OUTPUT),
  };
}

async function readEvent(file: string): Promise<z.infer<typeof eventSchema>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (cause) {
    throw new CairnError("USAGE", `cairn action: cannot read the event payload ${file} (GITHUB_EVENT_PATH): ${(cause as Error).message}`, { cause });
  }
  const parsed = eventSchema.safeParse(raw);
  // Events other than pull requests carry other shapes: no pull request, check everything.
  return parsed.success ? parsed.data : {};
}
