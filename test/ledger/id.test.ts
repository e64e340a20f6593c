import { describe, expect, it } from "vitest";
import { newEventId } from "../../src/ledger/id.js";

describe("newEventId", () => {
  it("sorts by time first", () => {
    const early = newEventId(Date.parse("2026-01-01T00:00:00Z"));
    const late = newEventId(Date.parse("2026-01-01T00:00:00.001Z"));
    const later = newEventId(Date.parse("2031-06-01T00:00:00Z"));
    expect(early < late && late < later).toBe(true);
    expect(early).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("is unique and increasing within one millisecond", () => {
    const t = Date.parse("2026-01-01T00:00:00Z");
    const ids = Array.from({ length: 10_000 }, () => newEventId(t));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.slice(0, 10))).size).toBe(1);
  });
});
