/**
 * Kill a process in the middle of a change, between its file steps and its ledger append: the month's ledger file is
 * made a FIFO, so the append blocks (no one reads it) once the files are written; the process is killed then. Returns
 * once it is dead, with the FIFO removed (the next command appends to a regular file again).
 */
import { execFileSync, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { REPO } from "./cli.js";

/** Run `call` (a statement using `kb`, e.g. `await kb.fixAnchors();`) on the built library in a child process at `root`; kill it once `written()` holds. */
export async function killBlockedOnLedger(root: string, call: string, written: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const fifo = path.join(root, "knowledge/.ledger", `${new Date().toISOString().slice(0, 7)}.jsonl`);
  execFileSync("mkfifo", [fifo]);
  const script = `
    const { openKnowledgeBase } = await import(${JSON.stringify(path.join(REPO, "dist/index.js"))});
    const kb = await openKnowledgeBase({ root: ${JSON.stringify(root)}, embedder: null });
    ${call}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "inherit"] });
  // Polled, not a fixed delay: a fixed delay was too short on a loaded machine.
  for (const end = Date.now() + 30_000; !(await written()); ) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`${what} never happened`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
  await rm(fifo);
}
