/** Claim status transitions (lifecycle rule 7): which `status` changes are allowed. `superseded` is terminal. */
import type { EntryStatus } from "../entry/types.js";

export const TRANSITIONS: Readonly<Record<EntryStatus, readonly EntryStatus[]>> = {
  hypothesis: ["observed", "inferred", "verified", "disputed", "superseded"],
  inferred: ["observed", "verified", "disputed", "superseded"],
  observed: ["inferred", "verified", "disputed", "superseded"],
  verified: ["disputed", "superseded"],
  disputed: ["verified", "superseded"],
  superseded: [],
};

export type TransitionCheck = { ok: true } | { ok: false; reason: string };

export function checkTransition(from: EntryStatus, to: EntryStatus): TransitionCheck {
  if (from === to) return { ok: true };
  if (TRANSITIONS[from].includes(to)) return { ok: true };
  const allowed = TRANSITIONS[from];
  return {
    ok: false,
    reason: allowed.length
      ? `status ${from} → ${to} is not allowed; from ${from} an entry may become ${allowed.join(", ")}`
      : `status ${from} is terminal; write a new entry instead of reviving a superseded one`,
  };
}
