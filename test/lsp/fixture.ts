/** A real git repository with source files and entries for the language server tests; removed after each test. */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { TextEdit } from "vscode-languageserver-protocol";
import { tempRepo, type TempRepo } from "../diff/repo.js";
import { startLsp, type LspClient } from "./client.js";
import { releaseAfterEachTest } from "../helpers/cleanup.js";

const repos: TempRepo[] = [];
releaseAfterEachTest("files", async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
});

export const AUTH_TS = "export function handleRequest() {\n  return fetch('x');\n}\n";

/** An entry's text; `evidence` and `verify` are single lines, `fm` extra frontmatter lines. */
export function entry(parts: { fm?: string; finding?: string; evidence?: string; verify?: string; body?: string } = {}): string {
  const fm = parts.fm ? `${parts.fm}\n` : "";
  const finding = parts.finding ?? "Auth middleware often swallows context cancellation errors; check ctx.Err() after upstream calls.";
  const evidence = parts.evidence ?? "src/auth.ts:1-3, handleRequest() — ctx not checked after the upstream call.";
  const verify = parts.verify ?? "grep for ctx.Err() after fetch() calls in src/.";
  return `---\nlastConfirmed: 2026-02-12\nprovenance: independent\n${fm}---\n${finding}\n\nEvidence: ${evidence}\nVerify: ${verify}\n${parts.body ?? ""}`;
}

/** Line (0-based) of the `Evidence:` line in `entry()` text with `fmLines` extra frontmatter lines. */
export const evidenceLine = (fmLines = 0) => 6 + fmLines;
/** Character where the anchor starts after `Evidence: `. */
export const ANCHOR_AT = "Evidence: ".length;

/** A committed repository: src/auth.ts, two entries on disk (`other`, `archived-one`) and a config making anchor-unresolved a warning. Removed after the test. */
export async function project(files: Record<string, string> = {}): Promise<TempRepo> {
  const repo = await committed(files);
  repos.push(repo);
  return repo;
}

/**
 * One `project()` and one server for every test of the file, as an editor keeps one server for many
 * buffers (each test opens its own files). Tests that change files on disk take their own.
 */
export function sharedServer(files: Record<string, string> = {}): () => { repo: TempRepo; client: LspClient } {
  let shared: { repo: TempRepo; client: LspClient } | undefined;
  beforeAll(async () => {
    const repo = await committed(files);
    shared = { repo, client: await startLsp(repo.dir, { keep: true }) };
  });
  afterAll(async () => {
    await shared?.client.stop();
    await shared?.repo.cleanup();
  });
  return () => shared!;
}

async function committed(files: Record<string, string>): Promise<TempRepo> {
  const repo = await tempRepo();
  const all: Record<string, string> = {
    "src/auth.ts": AUTH_TS,
    "knowledge/other.md": entry({ fm: "title: The other entry" }),
    "knowledge/archive/archived-one.md": entry({ fm: "archived: 2026-02-13\narchivedReason: decayed" }),
    "knowledge/.ledger/.gitkeep": "",
    "cairn.config.json": JSON.stringify({ rules: { "anchor-unresolved": "warning" } }),
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) await repo.write(rel, text);
  repo.commit("initial");
  return repo;
}

/** Insert `count` lines at the top of a file in the repository. */
export async function pushDown(repo: TempRepo, rel: string, text: string, count: number): Promise<void> {
  const pad = Array.from({ length: count }, (_, i) => `export const pad${i} = ${i};\n`).join("");
  await writeFile(path.join(repo.dir, rel), pad + text);
}

/** Apply LSP text edits to a text (edits do not overlap). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lines = text.split("\n");
  const offset = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}
