/** The prompt-injection corpus (test/fixtures/corpora/injection.ts): the figures bench/injection.ts reports, as regression guards. */
import { describe, expect, it } from "vitest";
import { detectInjection } from "../../../src/check/sanitize/injection.js";
import { BENIGN_PROSE, HELD_OUT_BENIGN, HELD_OUT_PAYLOADS, INJECTION_PAYLOADS } from "../../fixtures/corpora/injection.js";

const flagged = (text: string): boolean => detectInjection(text).length > 0;

describe("prompt-injection corpus", () => {
  it("is large enough: ≥ 50 payloads over 10 families and ≥ 50 benign review sentences", () => {
    expect(INJECTION_PAYLOADS.length + HELD_OUT_PAYLOADS.length).toBeGreaterThanOrEqual(50);
    expect(new Set(INJECTION_PAYLOADS.map((p) => p.family)).size).toBe(10);
    expect(BENIGN_PROSE.length + HELD_OUT_BENIGN.length).toBeGreaterThanOrEqual(50);
  });

  it.each(INJECTION_PAYLOADS.map((p) => [p.id, p.family, p.text]))("tuning payload %i (%s) is flagged", (_id, _family, text) => {
    expect(flagged(text)).toBe(true);
  });

  it.each(BENIGN_PROSE.map((p) => [p.id, p.text]))("benign sentence %i is not flagged", (_id, text) => {
    expect(flagged(text)).toBe(false);
  });

  it("held-out set (never used for tuning): no worse than measured when the detector was frozen (13/30 found, 1/30 false positive)", () => {
    expect(HELD_OUT_PAYLOADS.filter((p) => flagged(p.text)).length).toBeGreaterThanOrEqual(13);
    expect(HELD_OUT_BENIGN.filter((p) => flagged(p.text)).length).toBeLessThanOrEqual(1);
  });
});
