/** A real git repository holding code and knowledge, opened as a knowledge base with a fixed clock. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { CairnConfig } from "../../src/config.js";
import { openKnowledgeBase, type KnowledgeBase } from "../../src/knowledge-base.js";
import { tempRepo, type TempRepo } from "../diff/repo.js";
import { fakeEmbedder } from "../helpers/fake-embedder.js";
import { clockAt, type Clock } from "../lifecycle/setup.js";
import { releaseAfterEachTest } from "../helpers/cleanup.js";

const repos: TempRepo[] = [];
releaseAfterEachTest("files", async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
});

export type CodeRepo = TempRepo & { kb: KnowledgeBase; clock: Clock; reopen(config?: Partial<CairnConfig>): Promise<KnowledgeBase> };

/** A git repository with `files` committed and `knowledge/` initialised. */
export async function codeRepo(files: Record<string, string>, config: Partial<CairnConfig> = {}): Promise<CodeRepo> {
  const repo = await tempRepo();
  repos.push(repo);
  for (const [rel, text] of Object.entries(files)) await repo.write(rel, text);
  const clock = clockAt();
  const open = (c: Partial<CairnConfig>) => openKnowledgeBase({ root: repo.dir, now: () => clock.now, embedder: fakeEmbedder(), config: c });
  const kb = await open(config);
  await kb.init();
  repo.commit("initial");
  return { ...repo, kb, clock, reopen: (c = config) => open(c) };
}

/** A TypeScript file whose `handleRequest` spans lines `start`..`start + 9` (10 lines). */
export function serverSource(start = 52): string {
  const lines: string[] = [];
  for (let i = 1; i < start; i++) lines.push(i === 1 ? "// The request handler and its helpers." : `export const setting${i} = ${i};`);
  lines.push(
    "export function handleRequest(req: Request): Response {",
    "  const ctx = req.context;",
    "  const upstream = fetchUpstream(req);",
    "  // ctx.Err() is never checked after the upstream call",
    "  const body = upstream.body;",
    "  if (!body) {",
    "    return new Response(null);",
    "  }",
    "  return new Response(body);",
    "}",
  );
  lines.push("", "export function caller(req: Request) {", "  return handleRequest(req);", "}");
  return lines.join("\n") + "\n";
}

/** `n` lines of code to insert above something. */
export function padding(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `export const inserted${i} = ${i};`);
}

export function entryFile(evidence: string, verify = "Re-read the handler and check the context after the upstream call.", extra = ""): string {
  return `---\nlastConfirmed: 2026-02-12\nprovenance: independent\n${extra}---\nHandlers often skip the context check after an upstream call.\n\nEvidence: ${evidence}\nVerify: ${verify}\n`;
}

export async function insertAbove(root: string, rel: string, line: number, lines: string[]): Promise<void> {
  const { readFile } = await import("node:fs/promises");
  const text = (await readFile(path.join(root, rel), "utf8")).split("\n");
  text.splice(line - 1, 0, ...lines);
  await writeFile(path.join(root, rel), text.join("\n"));
}
