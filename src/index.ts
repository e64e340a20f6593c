/**
 * cairn's public API: `openKnowledgeBase()` and the types it speaks. Every type here is a plain TypeScript
 * type from src/types/ or a leaf module of plain types, so a consumer's `tsc` never reads zod or any other
 * dependency's declarations (test/types/public-declarations.test.ts walks the published closure).
 */
export { KnowledgeBase, openKnowledgeBase } from "./knowledge-base.js";
export { CairnError, isCairnError, type CairnErrorCode } from "./errors.js";
export { DEFAULT_CONFIG, type AgentDeclaration, type CairnConfig, type EmbedderConfig, type RuleSetting } from "./types/config.js";
export type { Layout, OpenOptions } from "./types/open.js";
export type { ContextEntry, InjectInput, InjectResult, NotInjected, Withheld } from "./types/inject.js";
export type {
  AlreadyRecorded,
  CompoundFinding,
  CompoundResult,
  Confirmation,
  DecayCandidate,
  DecayOptions,
  DecayResult,
  Finding,
  RecordResult,
  ReviewOptions,
  Unmatched,
} from "./types/review.js";
export type { ChangedFile, ChangedRange, FusionParams, SearchOptions, SearchResponse, SearchResult, TouchLevel } from "./types/search.js";
export type { IndexOptions, IndexProgress, IndexSummary, SyncReport, WatchEvent, WatchHandle, WatchOptions } from "./types/indexing.js";
export type {
  AnchorView,
  Conflict,
  ConflictKind,
  DecayStanding,
  EntryStatusRow,
  EntryView,
  Evidence,
  History,
  HistoryItem,
  NotFound,
  ShowResult,
  StatusOptions,
  StatusReport,
  Unreadable,
} from "./types/status.js";
export type { InitResult, ManualResult, NewEntryInput, NewEntryResult, RepairResult } from "./types/entries.js";
export type { AnchorEdit, CheckOptions, CheckReport, FixAnchorsOptions, FixReport } from "./types/check.js";
export type { EntryVerification, VerifyOptions, VerifyReport } from "./types/verify.js";
export type { Embedder } from "./indexing/embedder.js";
export type { Diagnostic, Severity } from "./entry/diagnostic.js";
export type { Anchor, Entry, EntryState, EntryStatus, Frontmatter, Provenance, Section, TextSpan } from "./entry/types.js";
export type { AnchorFingerprint, LedgerEvent, VerifyStepRecord } from "./ledger/events.js";
export { renderDiffMarkdown, type RenderOptions } from "./diff/markdown.js";
export type { BodySection, ChangeKind, DiffEntry, KnowledgeDiff } from "./diff/types.js";
export type { AnchorFix, AnchorProblem, AnchorRule, LineRange, ResolvedAnchor } from "./anchors/types.js";
export type {
  ReportModel,
  ReportEntry,
  ReportAgent,
  ReportRun,
  ReportSummary,
  RunPoint,
  TimelineItem,
  TimelineType,
  DecayState,
  DriftState,
  ReportEvidence,
  VerificationState as ReportVerificationState,
  ReportOptions,
} from "./report/types.js";
export { renderReportHtml } from "./report/html.js";
export { loadReportAssets, type ReportAssets } from "./report/assets.js";
