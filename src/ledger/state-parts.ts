/** The ledger state's parts (state.ts) as its snapshot codec (state-codec.ts) reads and writes them. */
import type { EntryFold, AfterRuns } from "./entry-fold.js";
import type { LedgerEvent } from "./events.js";
import type { RunLog, RunSlot } from "./run-log.js";
import type { Table } from "./table.js";

/** What a snapshot keeps encoded until first use (state-codec.ts): a command reads a few entries and one run of thousands. */
export type Stored = {
  /** Decode the fold of the snapshot's entry number `n` (once: the same object after); undefined beyond the snapshot's entries. */
  entry(n: number): EntryFold | undefined;
  /** The digest of the snapshot's entry `n`'s fingerprints (entry-fold.ts printsDigest), without decoding it. */
  digest(n: number): string | undefined;
  /** Decode a run log from what its slot holds. */
  run(encoded: unknown): RunLog;
  /** Decode an entry's after-reset runs from what its `afterAt` holds. */
  after(encoded: unknown): AfterRuns;
};

/** The parts of a state, as the codec (state-codec.ts) reads and writes them. */
export type StateParts = {
  size: number;
  last: LedgerEvent | undefined;
  origins: Table;
  agents: Table;
  /** Entry ids by number; the snapshot's are in `stored` until decoded into `folds`. */
  entryIds: Table;
  runKeys: Table;
  /** The decoded entry folds by entry number. */
  folds: Array<EntryFold | undefined>;
  runs: Map<string, RunSlot>;
  stored: Stored | undefined;
};
