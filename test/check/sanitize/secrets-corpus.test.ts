/** The generated secret corpus (test/fixtures/corpora/secrets.ts): goal ≤ 3% missed, 0 false positives; bench/secrets.ts reports the figures. */
import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../../src/check/sanitize/index.js";
import { lookAlikeCorpus, secretCorpus } from "../../fixtures/corpora/secrets.js";

const secretRules = (line: string) => sanitizeText(line, "knowledge/entry.md").filter((d) => d.rule.startsWith("secret-") || d.rule === "url-credentials");

describe("secret corpus", () => {
  const samples = secretCorpus();
  const lookAlikes = lookAlikeCorpus();

  it("holds ≥ 150 secrets from ≥ 30 providers and ≥ 100 look-alikes", () => {
    expect(samples.length).toBeGreaterThanOrEqual(150);
    expect(new Set(samples.map((s) => s.provider)).size).toBeGreaterThanOrEqual(30);
    expect(lookAlikes.length).toBeGreaterThanOrEqual(100);
  });

  it("misses at most 3% and never echoes a secret in a message", () => {
    const missed = samples.filter((s) => secretRules(s.line).length === 0).map((s) => s.provider);
    expect(missed.length / samples.length).toBeLessThanOrEqual(0.03);
    for (const s of samples) for (const d of secretRules(s.line)) expect(d.message).not.toContain(s.secret);
  });

  it("reports no look-alike (hashes, digests, UUIDs, base64, placeholders, public keys, code)", () => {
    expect(lookAlikes.filter((l) => secretRules(l.line).length > 0).map((l) => `${l.kind}: ${l.line}`)).toEqual([]);
  });
});
