#!/usr/bin/env node
/**
 * cairn's command line. A command that a running `cairn watch` of this repository runs for others goes to it
 * first (serve/client.ts), before the rest of the command line is even loaded; any other command, or one the
 * watcher cannot answer as this process would, runs here (cli.ts).
 */
import nodeModule from "node:module";
import { handleClosedOutput, processIo, reportError } from "./output.js";
import { ACTING_COMMANDS, forwardedCommand } from "./serve/protocol.js";

// Node 22.1+ keeps compiled code between runs (in the OS temp dir): every command imports its modules lazily, so
// most of cairn's start-up compilation is cached from the second run on. Older Node has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function start(argv: string[]): Promise<number> {
  const forwarded = forwardedCommand(argv.slice(2));
  let early: { root: string; actor: Promise<string> } | undefined;
  if (forwarded) {
    try {
      const { commandRoot } = await import("../store/root.js");
      const root = commandRoot(forwarded.root, process.cwd());
      // A command that records who acts looks it up now (`git config user.name`, a child process): it runs while
      // the rest loads, and forking this process is cheapest while it is small.
      if (ACTING_COMMANDS.has(forwarded.name)) early = { root, actor: import("../lifecycle/actor.js").then(({ detectActor }) => detectActor(root)) };
      const { viaWatch } = await import("./serve/client.js");
      const served = await viaWatch(argv.slice(2), root, processIo, early?.actor);
      if (served !== undefined) return served;
    } catch (error) {
      return reportError(processIo, error);
    }
  }
  const { runCli } = await import("./cli.js");
  return runCli(argv, early);
}

handleClosedOutput();
process.exitCode = await start(process.argv);
