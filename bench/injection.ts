/**
 * Prompt-injection detection measured on test/fixtures/corpora/injection.ts: the tuning set (in view
 * while the detector was written: optimistic) and the held-out set (written after it was frozen and
 * never used to change it: the honest figure), payloads found and benign review prose flagged.
 * Run: npx tsx bench/injection.ts
 */
import { detectInjection } from "../src/check/sanitize/injection.js";
import { BENIGN_PROSE, HELD_OUT_BENIGN, HELD_OUT_PAYLOADS, INJECTION_PAYLOADS, type Payload } from "../test/fixtures/corpora/injection.js";
import { fmt, goalTable, table, writeResults, type GoalRow } from "./lib/report.js";

const flagged = (text: string): boolean => detectInjection(text).length > 0;
const pct = (n: number, d: number): string => `${n}/${d} (${fmt((n / d) * 100, 0)}%)`;

function families(payloads: readonly Payload[]): Map<string, { found: number; total: number }> {
  const out = new Map<string, { found: number; total: number }>();
  for (const p of payloads) {
    const row = out.get(p.family) ?? { found: 0, total: 0 };
    row.total++;
    if (flagged(p.text)) row.found++;
    out.set(p.family, row);
  }
  return out;
}

const tuning = families(INJECTION_PAYLOADS);
const heldOut = families(HELD_OUT_PAYLOADS);
const found = (m: Map<string, { found: number; total: number }>) => [...m.values()].reduce((n, r) => n + r.found, 0);
const tuningFp = BENIGN_PROSE.filter((b) => flagged(b.text));
const heldFp = HELD_OUT_BENIGN.filter((b) => flagged(b.text));

const goals: GoalRow[] = [
  { metric: "payloads found, held-out set (written after the detector was frozen)", goal: "—", measured: pct(found(heldOut), HELD_OUT_PAYLOADS.length), pass: null },
  { metric: "benign review prose flagged, held-out set", goal: "0", measured: pct(heldFp.length, HELD_OUT_BENIGN.length), pass: heldFp.length === 0 },
  { metric: "payloads found, tuning set (in view while writing the detector)", goal: "—", measured: pct(found(tuning), INJECTION_PAYLOADS.length), pass: null },
  { metric: "benign review prose flagged, tuning set", goal: "0", measured: pct(tuningFp.length, BENIGN_PROSE.length), pass: tuningFp.length === 0 },
];
console.log(goalTable(goals));
const byFamily = [...tuning.keys()].map((family) => ({
  family,
  tuning: `${tuning.get(family)!.found}/${tuning.get(family)!.total}`,
  "held-out": heldOut.has(family) ? `${heldOut.get(family)!.found}/${heldOut.get(family)!.total}` : "-",
}));
console.log(`\n${table(byFamily)}`);
if (heldFp.length) console.log(`\nheld-out benign flagged: ${heldFp.map((b) => JSON.stringify(b.text)).join("; ")}`);
await writeResults("injection", goals, { tables: { families: byFamily } });
