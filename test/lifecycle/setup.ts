/** Shared setup for lifecycle and injection tests: a temp project, an injected clock, a fake embedder. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Embedder } from "../../src/indexing/embedder.js";
import type { CairnConfig } from "../../src/config.js";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/knowledge-base.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

/** A settable clock: `tick()` moves it forward by whole days (a `lastConfirmed` date counts until the end of its UTC day). */
export type Clock = { now: Date; tick(days?: number): Date; today(): string };

export function clockAt(iso = "2026-03-01T10:00:00.000Z"): Clock {
  const clock: Clock = {
    now: new Date(iso),
    tick(days = 1) {
      clock.now = new Date(clock.now.getTime() + days * 86_400_000);
      return clock.now;
    },
    today: () => clock.now.toISOString().slice(0, 10),
  };
  return clock;
}

export type Project = { root: string; kb: KnowledgeBase; clock: Clock };

/**
 * A temp project with SOURCE_FILES, `files` (path → content) and an initialised knowledge dir.
 * The clock starts on 2026-03-01, well after the fixtures' `lastConfirmed: 2026-02-12`. The actor is "tester" unless given.
 */
export async function project(
  files: Record<string, string> = {},
  options: { embedder?: Embedder | null; config?: Partial<CairnConfig>; clock?: Clock; actor?: string | null; origin?: string } = {},
): Promise<Project> {
  const root = await testdir({ ...SOURCE_FILES, ...files });
  const clock = options.clock ?? clockAt();
  const kb = await openKnowledgeBase({
    root,
    now: () => clock.now,
    embedder: options.embedder === undefined ? fakeEmbedder() : options.embedder,
    ...(options.config ? { config: options.config } : {}),
    // A fixed actor spares a `git config` process per test; null leaves it to detection (the audit tests).
    ...(options.actor === null ? {} : { actor: options.actor ?? "tester" }),
    ...(options.origin !== undefined ? { origin: options.origin } : {}),
  });
  await kb.init();
  return { root, kb, clock };
}

/** An entry file about `finding`, anchored in src/auth.ts unless `evidence` says otherwise. */
export function entry(finding: string, options: { fm?: string; evidence?: string; verify?: string } = {}): string {
  return entryText({ finding, ...options });
}

/** Frontmatter lines after the required two: e.g. `fm("agents: [security]")`. */
export function fm(...extra: string[]): string {
  return ["lastConfirmed: 2026-02-12", "provenance: independent", ...extra].join("\n");
}

export async function events(kb: KnowledgeBase): Promise<LedgerEvent[]> {
  return (await kb.ledger.read()).events;
}

export function read(root: string, rel: string): Promise<string> {
  return readFile(path.join(root, rel), "utf8");
}

/** Every file under `dir` (recursive) with its bytes, for "nothing was written" assertions. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    for (const item of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${item.name}` : item.name;
      if (item.isDirectory()) await walk(child);
      else out.set(child, (await readFile(path.join(dir, child))).toString("base64"));
    }
  };
  await walk("");
  return out;
}

/** Changed lines between two texts of equal line structure (a surgical edit changes one or two). */
export function changedLines(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) out.push(`${a[i] ?? ""} → ${b[i] ?? ""}`);
  return out;
}

/** Eight distinct entries that all match the query "database". */
export const DATABASE_FINDINGS: readonly string[] = [
  "Database connections are not released on error paths in the repository layer.",
  "Database transactions stay open when a validation step throws midway.",
  "Database queries inside loops cause N+1 round trips in list endpoints.",
  "Database migrations run without a lock and race each other on startup.",
  "Database timeouts are not configured, so slow statements hang request handlers.",
  "Database rows are fetched with wildcard selects and then filtered in memory.",
  "Database errors are logged together with the full statement and its parameters.",
  "Database pool size is hard-coded and ignores the configured limit.",
];

export function databaseEntries(count = DATABASE_FINDINGS.length): Record<string, string> {
  const files: Record<string, string> = {};
  DATABASE_FINDINGS.slice(0, count).forEach((finding, i) => {
    files[`knowledge/db-${i + 1}.md`] = entry(finding);
  });
  return files;
}
