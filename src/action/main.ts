#!/usr/bin/env node
/** Entry point of the GitHub Action's step (action.yml runs `node dist/action/main.js`). */
import { processIo, reportError } from "../cli/output.js";
import { runAction } from "./run.js";

process.exitCode = await runAction().catch((error: unknown) => {
  // An annotation makes the failure visible on the run's page; the message also goes to the log.
  processIo.out(`::error title=cairn::${(error instanceof Error ? error.message : String(error)).replace(/\r?\n/g, " ")}`);
  return reportError(processIo, error);
});
