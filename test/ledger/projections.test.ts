import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { confirmationInstant } from "../../src/ledger/clock.js";
import { projectLedger } from "../../src/ledger/projections.js";
import { injectionsForRun, wasInjected } from "../../src/ledger/runs.js";

let seq = 0;
function base(time: string) {
  seq += 1;
  return { v: 1, eventId: `ID${String(seq).padStart(6, "0")}`, time: new Date(time).toISOString() };
}
const inj = (time: string, run: string, agent: string, ...entries: string[]): LedgerEvent => ({ ...base(time), type: "injected", run, agent, entries });
const conf = (time: string, entry: string, provenance: "independent" | "primed", run = "rc", agent = "a"): LedgerEvent => ({
  ...base(time),
  type: "confirmed",
  run,
  agent,
  entry,
  provenance,
});
const manual = (time: string, entry: string): LedgerEvent => ({ ...base(time), type: "manual-confirmed", entry });
const restored = (time: string, entry: string): LedgerEvent => ({ ...base(time), type: "restored", entry, reason: "recurred" });
const archived = (time: string, entry: string): LedgerEvent => ({ ...base(time), type: "archived", entry, reason: "decayed" });

type Case = {
  name: string;
  lastConfirmed?: string;
  events: LedgerEvent[];
  unconfirmedRuns: number;
  lastConfirmedAt?: string;
  injectedRuns?: number;
  confirmations?: { independent: number; primed: number };
};

const cases: Case[] = [
  { name: "never injected", lastConfirmed: "2026-02-12", events: [], unconfirmedRuns: 0, injectedRuns: 0, lastConfirmedAt: "2026-02-12T23:59:59.999Z" },
  {
    name: "no confirmation at all: every injecting run counts",
    events: [inj("2026-02-01T00:00Z", "r1", "a", "E"), inj("2026-02-02T00:00Z", "r2", "a", "E"), inj("2026-02-03T00:00Z", "r3", "b", "E")],
    unconfirmedRuns: 3,
    injectedRuns: 3,
    lastConfirmedAt: undefined,
  },
  {
    name: "lastConfirmed date counts until the end of that day UTC",
    lastConfirmed: "2026-02-12",
    events: [inj("2026-02-12T23:00Z", "r1", "a", "E"), inj("2026-02-13T01:00Z", "r2", "a", "E")],
    unconfirmedRuns: 1,
    injectedRuns: 2,
    lastConfirmedAt: "2026-02-12T23:59:59.999Z",
  },
  {
    name: "end-of-day boundary to the millisecond",
    lastConfirmed: "2026-02-12",
    events: [inj("2026-02-12T23:59:59.999Z", "r1", "a", "E"), inj("2026-02-13T00:00:00.000Z", "r2", "a", "E")],
    unconfirmedRuns: 1,
  },
  {
    name: "a run injecting into several agents and in several calls counts once",
    lastConfirmed: "2026-01-01",
    events: [
      inj("2026-02-01T00:00Z", "r1", "security", "E", "F"),
      inj("2026-02-01T00:01Z", "r1", "performance", "E"),
      inj("2026-02-01T00:02Z", "r1", "security", "E"),
      inj("2026-02-02T00:00Z", "r2", "security", "E"),
    ],
    unconfirmedRuns: 2,
    injectedRuns: 2,
  },
  {
    name: "primed confirmations never reset the counter",
    lastConfirmed: "2026-01-01",
    events: [
      inj("2026-02-01T00:00Z", "r1", "a", "E"),
      conf("2026-02-01T00:10Z", "E", "primed", "r1", "a"),
      inj("2026-02-02T00:00Z", "r2", "a", "E"),
      conf("2026-02-02T00:10Z", "E", "primed", "r2", "a"),
    ],
    unconfirmedRuns: 2,
    lastConfirmedAt: "2026-01-01T23:59:59.999Z",
    confirmations: { independent: 0, primed: 2 },
  },
  {
    name: "an independent confirmation resets the counter",
    lastConfirmed: "2026-01-01",
    events: [
      inj("2026-02-01T00:00Z", "r1", "a", "E"),
      inj("2026-02-02T00:00Z", "r2", "a", "E"),
      conf("2026-02-02T00:10Z", "E", "independent", "r2", "b"),
      inj("2026-02-03T00:00Z", "r3", "a", "E"),
    ],
    unconfirmedRuns: 1,
    injectedRuns: 3,
    lastConfirmedAt: "2026-02-02T00:10:00.000Z",
    confirmations: { independent: 1, primed: 0 },
  },
  {
    name: "the confirmation instant itself is not after the confirmation; a run injecting later still counts",
    events: [
      inj("2026-02-02T00:10Z", "r2", "a", "E"),
      conf("2026-02-02T00:10Z", "E", "independent", "r2", "b"),
      inj("2026-02-02T00:20Z", "r2", "c", "E"),
      inj("2026-02-02T00:10Z", "r1", "a", "E"),
    ],
    unconfirmedRuns: 1,
    injectedRuns: 2,
  },
  {
    name: "a manual confirmation resets the counter",
    lastConfirmed: "2026-01-01",
    events: [inj("2026-02-01T00:00Z", "r1", "a", "E"), manual("2026-02-01T12:00Z", "E"), inj("2026-02-02T00:00Z", "r2", "a", "E")],
    unconfirmedRuns: 1,
    lastConfirmedAt: "2026-02-01T12:00:00.000Z",
  },
  {
    name: "a restore resets the counter (archived does not)",
    lastConfirmed: "2026-01-01",
    events: [
      inj("2026-02-01T00:00Z", "r1", "a", "E"),
      archived("2026-02-01T06:00Z", "E"),
      restored("2026-02-01T12:00Z", "E"),
      inj("2026-02-02T00:00Z", "r2", "a", "E"),
    ],
    unconfirmedRuns: 1,
    lastConfirmedAt: "2026-02-01T12:00:00.000Z",
  },
  {
    name: "a frontmatter date later than the last independent event wins",
    lastConfirmed: "2026-02-15",
    events: [
      conf("2026-02-10T12:00Z", "E", "independent"),
      inj("2026-02-14T00:00Z", "r1", "a", "E"),
      inj("2026-02-15T20:00Z", "r2", "a", "E"),
      inj("2026-02-16T00:00Z", "r3", "a", "E"),
    ],
    unconfirmedRuns: 1,
    lastConfirmedAt: "2026-02-15T23:59:59.999Z",
  },
  {
    name: "an independent event later than the frontmatter date wins",
    lastConfirmed: "2026-02-01",
    events: [inj("2026-02-05T00:00Z", "r1", "a", "E"), conf("2026-02-10T12:00Z", "E", "independent"), inj("2026-02-10T13:00Z", "r2", "a", "E")],
    unconfirmedRuns: 1,
    lastConfirmedAt: "2026-02-10T12:00:00.000Z",
  },
  {
    name: "events about other entries change nothing",
    lastConfirmed: "2026-01-01",
    events: [inj("2026-02-01T00:00Z", "r1", "a", "F"), conf("2026-02-01T00:00Z", "F", "independent"), inj("2026-02-02T00:00Z", "r2", "a", "E", "F")],
    unconfirmedRuns: 1,
    injectedRuns: 1,
    confirmations: { independent: 0, primed: 0 },
  },
  {
    name: "an unparseable or impossible frontmatter date is ignored",
    lastConfirmed: "2026-02-30",
    events: [inj("2026-02-01T00:00Z", "r1", "a", "E")],
    unconfirmedRuns: 1,
  },
];

describe("projectLedger (lifecycle rule 3)", () => {
  it.each(cases)("$name", (c) => {
    const views = projectLedger(c.events, [{ id: "E", ...(c.lastConfirmed ? { lastConfirmed: c.lastConfirmed } : {}) }]);
    const view = views.get("E");
    expect(view?.unconfirmedRuns).toBe(c.unconfirmedRuns);
    if ("lastConfirmedAt" in c) expect(view?.lastConfirmedAt).toBe(c.lastConfirmedAt);
    if (c.injectedRuns !== undefined) expect(view?.injectedRuns).toBe(c.injectedRuns);
    if (c.confirmations !== undefined) expect(view?.confirmations).toEqual(c.confirmations);
    // Order of events does not matter.
    const reversed = projectLedger([...c.events].reverse(), [{ id: "E", ...(c.lastConfirmed ? { lastConfirmed: c.lastConfirmed } : {}) }]);
    expect(reversed.get("E")?.unconfirmedRuns).toBe(c.unconfirmedRuns);
  });

  it("reports the latest injection and gives every listed entry a view, and only those", () => {
    const events = [inj("2026-02-01T00:00Z", "r1", "a", "E"), inj("2026-02-03T00:00Z", "r3", "b", "E", "G"), inj("2026-02-02T00:00Z", "r2", "a", "E")];
    const views = projectLedger(events, [{ id: "E" }, { id: "F", lastConfirmed: "2026-01-01" }]);
    expect([...views.keys()]).toEqual(["E", "F"]);
    expect(views.get("E")).toEqual({
      entry: "E",
      unconfirmedRuns: 3,
      heldOutRuns: 0,
      holdout: { withheld: 0, found: 0 },
      confirmations: { independent: 0, primed: 0 },
      lastInjected: "2026-02-03T00:00:00.000Z",
      lastInjectedRun: "r3",
      injectedRuns: 3,
    });
    expect(views.get("F")).toEqual({
      entry: "F",
      unconfirmedRuns: 0,
      heldOutRuns: 0,
      holdout: { withheld: 0, found: 0 },
      lastConfirmedAt: "2026-01-01T23:59:59.999Z",
      confirmations: { independent: 0, primed: 0 },
      injectedRuns: 0,
    });
  });

  it("reaches the decay threshold after 10 distinct unconfirmed runs", () => {
    const events = Array.from({ length: 12 }, (_, i) => inj(`2026-03-${String(i + 1).padStart(2, "0")}T10:00Z`, `run-${i}`, i % 2 ? "a" : "b", "E"));
    events.splice(2, 0, conf("2026-03-02T12:00Z", "E", "independent"));
    expect(projectLedger(events, [{ id: "E", lastConfirmed: "2026-02-01" }]).get("E")?.unconfirmedRuns).toBe(10);
  });
});

describe("confirmationInstant", () => {
  it.each([
    ["2026-02-12", "2026-02-12T23:59:59.999Z"],
    [" 2026-02-12 ", "2026-02-12T23:59:59.999Z"],
    ["2026-02-12T08:00:00+02:00", "2026-02-12T06:00:00.000Z"],
    ["2024-02-29", "2024-02-29T23:59:59.999Z"],
    ["2026-02-29", undefined],
    ["soon", undefined],
    [undefined, undefined],
  ])("%s -> %s", (input, expected) => {
    expect(confirmationInstant(input)).toBe(expected);
  });

  it("accepts a Date (as YAML may produce) as that UTC day", () => {
    expect(confirmationInstant(new Date("2026-02-12T00:00:00Z"))).toBe("2026-02-12T23:59:59.999Z");
  });
});

describe("injectionsForRun / wasInjected", () => {
  const events = [
    inj("2026-02-01T00:00Z", "r1", "security", "A", "B"),
    inj("2026-02-01T00:01Z", "r1", "security", "B", "C"),
    inj("2026-02-01T00:02Z", "r1", "performance", "D"),
    inj("2026-02-01T00:03Z", "r2", "security", "E"),
    conf("2026-02-01T00:04Z", "A", "primed", "r1", "security"),
  ];

  it("lists entries injected into one agent across calls, unique, in order", () => {
    expect(injectionsForRun(events, "r1", "security")).toEqual(["A", "B", "C"]);
    expect(injectionsForRun(events, "r1", "performance")).toEqual(["D"]);
    expect(injectionsForRun(events, "r1")).toEqual(["A", "B", "C", "D"]);
    expect(injectionsForRun(events, "r3", "security")).toEqual([]);
  });

  it("tells whether an entry was in an agent's context in a run", () => {
    expect(wasInjected(events, "r1", "security", "C")).toBe(true);
    expect(wasInjected(events, "r1", "performance", "C")).toBe(false);
    expect(wasInjected(events, "r2", "security", "A")).toBe(false);
  });
});

describe("projectLedger: runs per origin, holdout, repeated confirmations, the clock", () => {
  const at = (time: string, extra: Record<string, unknown>) => ({ ...base(time), ...extra }) as LedgerEvent;

  it("tells runs apart by id and origin: two branches' pr-1 are two runs; a run's agents and calls count once", () => {
    const events = [
      at("2026-03-01T10:00Z", { type: "injected", run: "pr-1", agent: "a", entries: ["E"], origin: "main@aaaa0000" }),
      at("2026-03-01T10:01Z", { type: "injected", run: "pr-1", agent: "b", entries: ["E"], origin: "main@aaaa0000" }),
      at("2026-03-01T11:00Z", { type: "injected", run: "pr-1", agent: "a", entries: ["E"], origin: "feature@aaaa0000" }),
      at("2026-03-01T12:00Z", { type: "injected", run: "pr-1", agent: "a", entries: ["E"], origin: "main@bbbb1111" }),
    ];
    expect(projectLedger(events, [{ id: "E" }]).get("E")?.unconfirmedRuns).toBe(3);
  });

  it("counts a (run, agent, finding) confirmed twice (a retry, a union merge) once", () => {
    const confirmation = { type: "confirmed", run: "r1", agent: "a", entry: "E", provenance: "independent", findingHash: "abcd" };
    const events = [at("2026-03-01T10:00Z", confirmation), at("2026-03-01T10:05Z", { ...confirmation, agent: " A " }), at("2026-03-01T10:06Z", { ...confirmation, findingHash: "ef01" })];
    expect(projectLedger(events, [{ id: "E" }]).get("E")?.confirmations).toEqual({ independent: 2, primed: 0 });
  });

  it("counts withheld runs after the last confirmation, not those that also injected, and how often a withheld agent found it", () => {
    const events = [
      at("2026-03-01T10:00Z", { type: "held-out", run: "r1", agent: "a", entry: "E" }),
      at("2026-03-01T10:00Z", { type: "held-out", run: "r1", agent: "b", entry: "E" }),
      at("2026-03-02T10:00Z", { type: "held-out", run: "r2", agent: "a", entry: "E" }),
      at("2026-03-02T10:00Z", { type: "injected", run: "r2", agent: "b", entries: ["E"] }),
      at("2026-03-03T10:00Z", { type: "held-out", run: "r3", agent: "a", entry: "E" }),
    ];
    expect(projectLedger(events, [{ id: "E" }]).get("E")).toMatchObject({ heldOutRuns: 2, unconfirmedRuns: 1, holdout: { withheld: 4, found: 0 } });
    const found = [...events, at("2026-03-03T10:30Z", { type: "confirmed", run: "r3", agent: "a", entry: "E", provenance: "independent" })];
    expect(projectLedger(found, [{ id: "E" }]).get("E")).toMatchObject({ heldOutRuns: 0, unconfirmedRuns: 0, holdout: { withheld: 4, found: 1 } });
  });

  it("a date the ledger explains is its event's exact time; a future date is ignored", () => {
    const events = [
      at("2026-03-01T09:00Z", { type: "confirmed", run: "r0", agent: "b", entry: "E", provenance: "independent" }),
      ...Array.from({ length: 12 }, (_, i) => at(`2026-03-01T${String(10 + i).padStart(2, "0")}:00Z`, { type: "injected", run: `r${i + 1}`, agent: "a", entries: ["E"] })),
    ];
    expect(projectLedger(events, [{ id: "E", lastConfirmed: "2026-03-01" }]).get("E")).toMatchObject({ unconfirmedRuns: 12, lastConfirmedAt: "2026-03-01T09:00:00.000Z" });
    const injections = events.slice(1);
    expect(projectLedger(injections, [{ id: "E", lastConfirmed: "2030-01-01" }], { today: "2026-03-01" }).get("E")?.unconfirmedRuns).toBe(12);
    expect(projectLedger(injections, [{ id: "E", lastConfirmed: "2030-01-01" }]).get("E")?.unconfirmedRuns).toBe(0);
  });
});
