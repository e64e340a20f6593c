/** A one-line progress bar on a TTY stderr; silent otherwise. And how a command says that it builds the index. */
import type { IndexProgress } from "../types/indexing.js";
import type { Io } from "./output.js";

/** A refresh that parses at least this many entry files (or embeds this many texts) is announced: it takes seconds. */
export const ANNOUNCE_FROM = { indexing: 500, embedding: 32 } as const;

/**
 * How a command shows the index being built, whichever command started it (a first search in a fresh clone
 * parses and indexes every entry: ~10 s at 10,000 entries): a bar per phase on a terminal, else one line on
 * stderr per long phase, so a CI log says why the command takes that long. Short refreshes say nothing.
 */
export function refreshProgress(io: Io): IndexProgress {
  const bars = new Map<string, ReturnType<typeof progressBar>>();
  return (done, total, phase) => {
    if (total < ANNOUNCE_FROM[phase]) return;
    if (done === 0) {
      if (!io.tty) io.err(phase === "indexing" ? `cairn: indexing ${total.toLocaleString("en-US")} entry files (a fresh clone, a first index, or many changed files; .cairn/ keeps the result for the next command)` : `cairn: embedding ${total.toLocaleString("en-US")} entry texts (cached in .cairn/ for the next command)`);
      bars.set(phase, progressBar(io, phase));
    }
    const bar = bars.get(phase);
    bar?.update(done, total);
    if (done >= total) bar?.done(), bars.delete(phase);
  };
}

export function progressBar(io: Io, label: string): { update: (done: number, total: number) => void; done: () => void } {
  if (!io.tty) return { update: () => {}, done: () => {} };
  const write = io.rawErr ?? ((text: string) => void process.stderr.write(text));
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 80 && done < total) return;
      last = now;
      shown = true;
      const width = 30;
      const filled = total ? Math.round((done / total) * width) : width;
      write(`\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
    },
    done() {
      if (shown) write("\r\x1b[2K");
    },
  };
}
