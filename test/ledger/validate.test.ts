import { describe, expect, it } from "vitest";
import { checkEvent, EVENT_TYPES } from "../../src/ledger/validate.js";

const base = { v: 1, eventId: "01J00000000000000000000000", time: "2026-03-01T10:00:00.000Z" };

describe("checkEvent: the new events and fields", () => {
  it("knows held-out, created, hand-confirmed and status-set", () => {
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(["held-out", "created", "hand-confirmed", "status-set"]));
    expect(checkEvent({ ...base, type: "held-out", run: "r1", agent: "a", entry: "E", origin: "main@0123abcd", actor: "Ada" })).toBeUndefined();
    expect(checkEvent({ ...base, type: "created", entry: "E" })).toBeUndefined();
    expect(checkEvent({ ...base, type: "hand-confirmed", entry: "E", date: "2026-03-01" })).toBeUndefined();
    expect(checkEvent({ ...base, type: "status-set", entry: "E", from: "observed", to: "verified" })).toBeUndefined();
  });

  it("names the field that is wrong", () => {
    expect(checkEvent({ ...base, type: "held-out", run: "r1", agent: "a" })?.message).toBe('"entry" must be a non-empty string (got nothing)');
    expect(checkEvent({ ...base, type: "hand-confirmed", entry: "E", date: "March 1" })?.message).toMatch(/"date" must be a date YYYY-MM-DD/);
    expect(checkEvent({ ...base, type: "created", entry: "E", actor: 7 })?.message).toBe('"actor" must be a non-empty string (got 7)');
    expect(checkEvent({ ...base, type: "injected", run: "r", agent: "a", entries: [], origin: "" })?.message).toMatch(/"origin"/);
    expect(checkEvent({ ...base, type: "toString" })?.message).toMatch(/"type" must be one of/);
  });
});
