/** cairn's public API: `openKnowledgeBase()` and the types it speaks. */
export { KnowledgeBase, openKnowledgeBase, type IndexSummary, type NewEntryResult, type OpenOptions } from "./knowledge-base.js";
export type { SearchOptions, SearchResponse, SearchResult } from "./retrieval/search.js";
export type { FusionParams } from "./retrieval/fusion.js";
export type { SyncReport } from "./indexing/search-index.js";
export type { Embedder } from "./indexing/embedder.js";
export { DEFAULT_CONFIG, type CairnConfig, type EmbedderConfig } from "./config.js";
export { CairnError, isCairnError, type CairnErrorCode } from "./errors.js";
export type { Diagnostic, Severity } from "./entry/diagnostic.js";
export type { Anchor, Entry, EntryState, EntryStatus, Frontmatter, Provenance } from "./entry/types.js";
export type { CheckOptions, CheckReport } from "./check/run.js";
export type { EntryStatusRow, StatusReport } from "./lifecycle/status.js";
export type { ManualResult } from "./lifecycle/manual.js";
export type { AnchorView, EntryView, ShowResult } from "./lifecycle/show.js";
export type { InitResult } from "./store/init.js";
export type { NewEntryInput } from "./lifecycle/create.js";
export type { LedgerEvent } from "./ledger/events.js";
export { renderDiffMarkdown, type KnowledgeDiff, type DiffEntry, type ChangeKind } from "./diff/index.js";
export type { ResolvedAnchor, AnchorProblem, AnchorRule, AnchorFix, LineRange } from "./anchors/types.js";
export type { FixReport } from "./anchors/fix-entries.js";
export type { AnchorEdit } from "./anchors/fix.js";
export type { VerifyReport } from "./verify/index.js";
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
} from "./report/types.js";
export type { ReportOptions } from "./report/model.js";
export { renderReportHtml } from "./report/html.js";
export { loadReportAssets, type ReportAssets } from "./report/assets.js";
