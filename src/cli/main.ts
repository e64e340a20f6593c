#!/usr/bin/env node
/**
 * cairn's command line. A command that a running `cairn watch` of this repository runs for others goes to it
 * first (serve/client.ts), before the rest of the command line is even loaded; any other command, or one the
 * watcher cannot answer as this process would, runs here (cli.ts).
 */
import nodeModule from "node:module";
import { handleClosedOutput, processIo, reportError } from "./output.js";
import { forwardedCommand } from "./serve/protocol.js";

// Node 22.1+ keeps compiled code between runs (in the OS temp dir): every command imports its modules lazily, so
// most of cairn's start-up compilation is cached from the second run on. Older Node has no such cache.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

async function start(argv: string[]): Promise<number> {
  const forwarded = forwardedCommand(argv.slice(2));
  if (forwarded) {
    try {
      const [{ commandRoot }, { viaWatch }] = await Promise.all([import("../store/root.js"), import("./serve/client.js")]);
      const served = await viaWatch(argv.slice(2), commandRoot(forwarded.root, process.cwd()), processIo);
      if (served !== undefined) return served;
    } catch (error) {
      return reportError(processIo, error);
    }
  }
  const { runCli } = await import("./cli.js");
  return runCli(argv);
}

handleClosedOutput();
process.exitCode = await start(process.argv);
