/** `cairn verify`: run every (or the given) active entry's mechanical verify steps and record the results in the ledger. */
import type { Entry } from "../entry/types.js";
import type { LedgerSource, NewEvent } from "../ledger/index.js";
import type { Layout } from "../store/layout.js";
import { relativePath } from "../store/layout.js";
import { searchFiles } from "./files.js";
import { verificationStates } from "./records.js";
import { DEFAULT_VERIFY_LIMITS, verifyEntries, type EntryVerification, type VerifyLimits } from "./run.js";
import type { VerifyReport } from "../types/verify.js";

export { verificationStates, verificationWarning, type VerificationState } from "./records.js";
export { DEFAULT_VERIFY_LIMITS, type EntryVerification, type VerifyLimits } from "./run.js";

export type { VerifyReport } from "../types/verify.js";

/**
 * Verify `entries` and decide which results to record: a `verified` event is appended only when
 * an entry's result or Verify section differs from its last recorded verification, so CI runs many
 * times a day do not grow the ledger with repeats.
 */
export async function planVerify(layout: Layout, entries: readonly Entry[], events: LedgerSource, limits: VerifyLimits = DEFAULT_VERIFY_LIMITS): Promise<{ rows: VerifyReport["entries"]; events: NewEvent[] }> {
  const files = searchFiles(layout.root, { exclude: relativePath(layout, layout.knowledge), maxFileBytes: limits.maxFileBytes });
  const states = verificationStates(events);
  const rows: VerifyReport["entries"] = [];
  const toAppend: NewEvent[] = [];
  const sorted = [...entries].sort((a, b) => a.id.localeCompare(b.id));
  for (const v of await verifyEntries(files, sorted, limits)) {
    const last = states.get(v.id)?.latest;
    const recorded = !last || last.result !== v.result || last.verifyHash !== v.verifyHash;
    if (recorded) toAppend.push({ type: "verified", entry: v.id, result: v.result, verifyHash: v.verifyHash, steps: v.steps });
    rows.push({ ...v, recorded });
  }
  return { rows, events: toAppend };
}
