/** The command line in this process: parse the arguments (program.ts) and run the command here. */
import type { Command } from "commander";
import { CommanderError } from "commander";
import { EXIT, processIo, reportError, terminalText } from "./output.js";
import { refreshProgress } from "./progress.js";
import { buildProgram, type Action, type RunOptions } from "./program.js";

let exitCode: number = EXIT.ok;

/** Who acts in commands run in `root`, looked up before the command line was loaded (main.ts). */
export type EarlyActor = { root: string; actor: Promise<string> };

/** Open the knowledge base for the global --root and run one command, mapping errors to exit codes. */
async function run(early: EarlyActor | undefined, program: Command, action: Action, options: RunOptions = {}): Promise<void> {
  const io = processIo;
  try {
    const { openKnowledgeBase } = await import("../knowledge-base.js");
    const root = program.opts<{ root?: string }>().root ?? (options.here ? process.cwd() : undefined);
    const kb = await openKnowledgeBase({ ...(root ? { root } : {}), onWarning: (message) => io.err(terminalText(`warning: ${message}`)), onProgress: refreshProgress(io) });
    exitCode = early && early.root === kb.layout.root ? await kb.actingAs(early.actor, () => action(kb, io)) : await action(kb, io);
  } catch (error) {
    exitCode = reportError(io, error);
  }
}

/** Run the command line `argv` (process.argv: node, script, arguments) here; its exit code. `actor`: who acts, if already looked up. */
export async function runCli(argv: string[], actor?: EarlyActor): Promise<number> {
  const program = buildProgram((...args) => run(actor, ...args));
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
