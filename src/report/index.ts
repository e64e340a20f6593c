/** The knowledge report: its data model (pure), the static HTML page, and writing it inside the repository. */
export { buildReportModel, type ReportInput, type ReportOptions } from "./model.js";
export { loadReportAssets, type ReportAssets } from "./assets.js";
export { renderReportHtml } from "./html.js";
export { DEFAULT_REPORT_DIR, reportFile, writeReport } from "./write.js";
export type * from "./types.js";
