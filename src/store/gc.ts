/**
 * A full garbage collection on request, for the one job that allocates far more than it keeps: parsing
 * and analysing a whole knowledge base for a first index. V8 grows its heap lazily, so without a nudge a
 * first index of 100k entries holds gigabytes of garbage although what it keeps fits in a few hundred MB.
 * `--expose-gc` is set from inside (the CLI cannot pass node flags); where that is refused, nothing happens.
 */
import v8 from "node:v8";
import vm from "node:vm";

/** Entries from which long-lived and large jobs collect their garbage at their natural pauses (after opening a catalogue, after a watcher's refresh). */
export const COLLECT_FROM_ENTRIES = 20_000;

let collect: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      collect = vm.runInNewContext("gc") as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
}
