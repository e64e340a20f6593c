/**
 * One integrity simulation in its own process (bench/integrity.ts runs several at once): the job is a
 * JSON SimConfig in argv[2]; prints one JSON line `{ config, figures, ms }` on stdout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { figures } from "./figures.js";
import { simulate, type SimConfig } from "./sim.js";

const config = JSON.parse(process.argv[2] ?? "{}") as SimConfig;
const root = await mkdtemp(path.join(os.tmpdir(), "cairn-integrity-"));
try {
  const outcome = await simulate(root, config);
  const events = (await outcome.kb.ledger.read()).events;
  process.stdout.write(`${JSON.stringify({ config, figures: figures(outcome, events), ms: Math.round(outcome.ms) })}\n`);
} finally {
  await rm(root, { recursive: true, force: true });
}
