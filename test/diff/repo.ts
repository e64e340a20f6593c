/** Test helpers: a real temporary git repository with entries, isolated from the user's git config. */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_AUTHOR_DATE: "2026-02-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-02-01T00:00:00Z",
};

export type TempRepo = {
  dir: string;
  git: (...args: string[]) => string;
  write: (rel: string, text: string) => Promise<void>;
  remove: (rel: string) => Promise<void>;
  commit: (message: string) => string;
  cleanup: () => Promise<void>;
};

export async function tempDir(prefix = "cairn-diff-"): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function tempRepo(): Promise<TempRepo> {
  const dir = await tempDir();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: GIT_ENV, encoding: "utf8" }).trim();
  git("-c", "init.defaultBranch=main", "init", "-q");
  return {
    dir,
    git,
    write: async (rel, text) => {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), text);
    },
    remove: (rel) => unlink(path.join(dir, rel)),
    commit: (message) => {
      git("add", "-A");
      git("commit", "-q", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD");
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export type EntryText = {
  finding?: string;
  evidence?: string;
  verify?: string;
  lastConfirmed?: string;
  provenance?: string;
  /** Extra frontmatter lines. */
  extra?: string;
};

export function entryText(options: EntryText = {}): string {
  const {
    finding = "Handlers often forget to check the context error after upstream calls.",
    evidence = "src/handler.ts:10-12, handle() — the error is dropped.",
    verify = "grep for ctx.Err() after fetch() calls in src/*.ts.",
    lastConfirmed = "2026-01-02",
    provenance = "independent",
    extra = "",
  } = options;
  return `---\nlastConfirmed: ${lastConfirmed}\nprovenance: ${provenance}\n${extra}---\n${finding}\n\nEvidence: ${evidence}\n\nVerify: ${verify}\n`;
}

let counter = 0;
/** One ledger line with a unique event id. */
export function ledgerLine(event: Record<string, unknown>): string {
  counter += 1;
  return `${JSON.stringify({ v: 1, eventId: `01TEST${String(counter).padStart(20, "0")}`, ...event })}\n`;
}
