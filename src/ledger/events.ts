/** Ledger event types: one JSON object per line in knowledge/.ledger/*.jsonl. */
import type { Provenance } from "../entry/types.js";

export const LEDGER_SCHEMA_VERSION = 1;

type Base = {
  /** Schema version of this line. */
  v: number;
  /** Unique event id (used to de-duplicate after union merges). */
  eventId: string;
  /** ISO timestamp. */
  time: string;
};

export type InjectedEvent = Base & { type: "injected"; run: string; agent: string; entries: string[] };
export type ConfirmedEvent = Base & {
  type: "confirmed";
  run: string;
  agent: string;
  entry: string;
  provenance: Provenance;
  /** sha256 (first 16 hex) of the finding text. */
  findingHash?: string;
  score?: number;
};
export type ArchivedEvent = Base & { type: "archived"; entry: string; reason: string; run?: string };
export type RestoredEvent = Base & { type: "restored"; entry: string; reason: string; run?: string };
export type CompoundedEvent = Base & { type: "compounded"; entry: string; run: string; agents: string[] };
export type RetractedEvent = Base & { type: "retracted"; entry: string };
export type ManualConfirmEvent = Base & { type: "manual-confirmed"; entry: string };
export type SupersededEvent = Base & { type: "superseded"; entry: string; by: string };

export type LedgerEvent =
  | InjectedEvent
  | ConfirmedEvent
  | ArchivedEvent
  | RestoredEvent
  | CompoundedEvent
  | RetractedEvent
  | ManualConfirmEvent
  | SupersededEvent;
