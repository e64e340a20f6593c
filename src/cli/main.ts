#!/usr/bin/env node
/** cairn's command line: parse the arguments (program.ts), then run the command here or in a running `cairn watch`. */
import type { Command } from "commander";
import { CommanderError } from "commander";
import { EXIT, handleClosedOutput, processIo, reportError } from "./output.js";
import { refreshProgress } from "./progress.js";
import { buildProgram, type Action, type RunOptions } from "./program.js";
import nodeModule from "node:module";

// Node 22.1+ keeps compiled code between runs (in the OS temp dir): every command imports its modules lazily, so
// most of cairn's start-up compilation is cached from the second run on. Older Node has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

let exitCode: number = EXIT.ok;

/** Open the knowledge base for the global --root and run one command, mapping errors to exit codes. */
async function run(program: Command, action: Action, options: RunOptions = {}): Promise<void> {
  const io = processIo;
  try {
    const given = program.opts<{ root?: string }>().root;
    if (options.forward) {
      // A running `cairn watch` of this root holds the index, the ledger and the lint results in memory: it runs the
      // command (re-checking every file first, as this process would) and this process prints what it says.
      const { commandRoot } = await import("../store/root.js");
      const { viaWatch } = await import("./serve/client.js");
      const served = await viaWatch(process.argv.slice(2), commandRoot(given, process.cwd()), io);
      if (served !== undefined) return void (exitCode = served);
    }
    const { openKnowledgeBase } = await import("../knowledge-base.js");
    const root = given ?? (options.here ? process.cwd() : undefined);
    const kb = await openKnowledgeBase({ ...(root ? { root } : {}), onWarning: (message) => io.err(`warning: ${message}`), onProgress: refreshProgress(io) });
    exitCode = await action(kb, io);
  } catch (error) {
    exitCode = reportError(io, error);
  }
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(run);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; every other commander error is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(processIo, error);
  }
  return exitCode;
}

handleClosedOutput();
process.exitCode = await main(process.argv);
