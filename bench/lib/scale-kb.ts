/**
 * A generated knowledge base the way a user has one: N entries anchored into a generated source tree,
 * ~5% of them archived by decay, a ledger of past runs, `cairn init`'s .gitignore/.gitattributes, all
 * committed to a real git repository. Each build under test then gets its own copy (index formats differ).
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeCorpus, type GeneratedEntry, type SourceFile } from "./corpus.js";
import { FRESH_SOURCES, freshSource, freshSourceText } from "./scale-rows.js";
import { ledgerPlan, writeLedger, type LedgerSummary } from "./scale-ledger.js";

export type ScaleKb = {
  root: string;
  /** Active entries (the rows pick their targets here). */
  active: GeneratedEntry[];
  archived: number;
  sources: SourceFile[];
  agents: string[];
  ledger: LedgerSummary | null;
};

export type KbOptions = {
  entries: number;
  /** cairn.config.json's embedder; undefined: no config file (the default embedder, USE-lite). */
  embedder?: { provider: string };
  /** Write the ledger of past runs. Default true. */
  ledger?: boolean;
  /** The build's executable (bench/lib/cli-path.ts) used for `cairn init`. */
  cli: string;
};

/** Run a command to completion; throws with its stderr on a non-zero exit. */
export function sh(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", (error) => reject(new Error(`could not start ${command}: ${error.message}`, { cause: error })));
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
      else reject(new Error(`${command} ${args.slice(0, 4).join(" ")} exited ${code} in ${cwd}: ${Buffer.concat(err).toString("utf8").slice(0, 2000)}`));
    });
  });
}

const GIT_ENV = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false"];

/** Move every 20th entry to knowledge/archive/ with the fields decay writes. */
async function archiveSome(root: string, entries: readonly GeneratedEntry[]): Promise<Set<string>> {
  const archived = new Set<string>();
  for (let i = 19; i < entries.length; i += 20) {
    const e = entries[i]!;
    const from = path.join(root, e.rel);
    const text = await readFile(from, "utf8");
    const end = text.indexOf("\n---", 3);
    const withFields = `${text.slice(0, end)}\narchived: 2026-06-01\narchivedReason: "decayed: injected in 10 runs without an independent confirmation"${text.slice(end)}`;
    await writeFile(path.join(root, "knowledge", "archive", `${e.id}.md`), withFields);
    await unlink(from);
    archived.add(e.id);
  }
  return archived;
}

export async function buildKnowledgeBase(root: string, options: KbOptions, log: (m: string) => void): Promise<ScaleKb> {
  const packages = Math.max(2, Math.round(options.entries / 12_500));
  log(`  writing ${options.entries.toLocaleString("en-US")} entries over ${packages} source packages`);
  const corpus = await writeCorpus(root, { entries: options.entries, packages });
  for (let r = 0; r < FRESH_SOURCES; r++) {
    await mkdir(path.join(root, path.dirname(freshSource(r))), { recursive: true });
    await writeFile(path.join(root, freshSource(r)), freshSourceText(r));
  }
  const archivedIds = await archiveSome(root, corpus.entries);
  if (options.embedder) await writeFile(path.join(root, "cairn.config.json"), `${JSON.stringify({ embedder: options.embedder }, null, 2)}\n`);
  await sh("git", ["init", "-q", "-b", "main"], root);
  // No background `git gc --auto` after the big commit: it packs loose objects while the bench copies the repository.
  await sh("git", ["config", "gc.auto", "0"], root);
  await sh("git", ["config", "maintenance.auto", "false"], root);
  await sh(process.execPath, [options.cli, "--root", root, "init"], root);
  const agents = [...new Set(corpus.entries.map((e) => e.agent))].sort().slice(0, 4);
  let ledger: LedgerSummary | null = null;
  if (options.ledger ?? true) {
    const plan = ledgerPlan(options.entries);
    log(`  writing the ledger: ${plan.runs} past runs, ~${plan.events.toLocaleString("en-US")} events`);
    ledger = await writeLedger(root, corpus.entries.map((e) => ({ id: e.id, agent: e.agent, text: e.text, archived: archivedIds.has(e.id) })), plan);
  }
  log("  committing to git");
  await sh("git", ["add", "-A"], root);
  await sh("git", [...GIT_ENV, "commit", "-q", "-m", "generated knowledge base"], root);
  return {
    root,
    active: corpus.entries.filter((e) => !archivedIds.has(e.id)).map((e) => ({ ...e })),
    archived: archivedIds.size,
    sources: corpus.sources,
    agents,
    ledger,
  };
}

/** A copy of `from` (a git repository) at `to`, with git's stat cache refreshed for the new paths. */
export async function copyKnowledgeBase(from: string, to: string): Promise<void> {
  await sh("cp", ["-a", `${from}/.`, to], path.dirname(to));
  await sh("git", ["update-index", "-q", "--refresh"], to).catch(() => undefined);
}
