/** Temp fixture trees: write files from an object, clean up after the test. */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { releaseAfterEachTest } from "./cleanup.js";

const made: string[] = [];

releaseAfterEachTest("files", async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Create a temp dir holding `files` (path → content). Removed after the current test. */
export async function testdir(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cairn-test-"));
  made.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return dir;
}

/** A valid entry file; override parts as needed. */
export function entryText(parts: { fm?: string; finding?: string; evidence?: string; verify?: string } = {}): string {
  const fm = parts.fm ?? "lastConfirmed: 2026-02-12\nprovenance: independent";
  const finding = parts.finding ?? "Auth middleware often swallows context cancellation errors — check for ctx.Err() after upstream calls.";
  const evidence = parts.evidence ?? "src/auth.ts:1-2, handleRequest() — ctx not checked after the upstream call.";
  const verify = parts.verify ?? "grep for ctx.Err() after fetch() calls in src/.";
  return `---\n${fm}\n---\n${finding}\n\nEvidence: ${evidence}\nVerify: ${verify}\n`;
}

/** A repo tree with one source file the default entry's anchor points at. */
export const SOURCE_FILES: Record<string, string> = {
  "src/auth.ts": "export function handleRequest() {\n  return fetch('x');\n}\n",
};
