/** The report page's stylesheet (inlined in the page; system fonts only, nothing loaded). Colours are custom properties the charts read too. */
export const REPORT_CSS = `
:root {
  --bg: #f6f7f9; --fg: #1d2330; --muted: #5d6877; --card: #ffffff; --border: #e2e6ec; --grid: rgba(29, 35, 48, 0.08);
  --independent: #1b8a4a; --primed: #8e44ad; --injected: #a9bccf; --held: #f0b429;
  --good: #1b8a4a; --warn: #b87400; --bad: #c62828; --quiet: #687585;
  --ok: #3fa66a; --near: #e0a800; --last-chance: #ef6c00; --past-limit: #c62828; --archived: #b3bcc7;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --fg: #e6e9ee; --muted: #9aa5b4; --card: #1c2027; --border: #2c323c; --grid: rgba(230, 233, 238, 0.1);
    --independent: #4cc38a; --primed: #c08ae0; --injected: #4d6278; --held: #e0a82e;
    --good: #4cc38a; --warn: #e0a82e; --bad: #ef6b6b; --quiet: #8d99a8;
    --ok: #4cc38a; --archived: #4a5360;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h1 .project { font-weight: 400; color: var(--muted); margin-left: 10px; }
h2 { font-size: 18px; margin: 36px 0 6px; }
h3 { font-size: 15px; margin: 0 0 6px; }
.muted, .note { color: var(--muted); }
.note { margin: 0 0 12px; max-width: 900px; }
.small { font-size: 12px; color: var(--muted); margin-top: 2px; }
.error { color: var(--bad); font-weight: 600; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 10px; margin-top: 18px; }
.stat-card { padding: 10px 14px; }
.stat-card .value { font-size: 22px; font-weight: 650; }
.stat-card .label { color: var(--muted); font-size: 12px; }
.stat-card.warn .value { color: var(--warn); }
.stat-card.bad .value { color: var(--bad); }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 10px; }
.controls input, .controls select { font: inherit; padding: 5px 8px; border: 1px solid var(--border); border-radius: 6px; background: var(--card); color: var(--fg); }
.controls input { min-width: 260px; }
.count { color: var(--muted); margin-left: auto; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
table.entries { width: 100%; border-collapse: collapse; }
table.entries th { position: sticky; top: 0; background: var(--card); text-align: left; font-size: 12px; color: var(--muted); font-weight: 600; padding: 8px 10px; border-bottom: 1px solid var(--border); cursor: pointer; user-select: none; white-space: nowrap; }
table.entries th[aria-sort="ascending"]::after { content: " ▲"; }
table.entries th[aria-sort="descending"]::after { content: " ▼"; }
table.entries td { padding: 8px 10px; border-bottom: 1px solid var(--border); vertical-align: top; }
tr.entry-row { cursor: pointer; }
tr.entry-row:hover, tr.entry-row:focus { background: var(--bg); outline: none; }
tr.entry-row.state-archived .entry-title { color: var(--muted); }
.entry-cell { max-width: 360px; }
.entry-title { font-weight: 600; overflow-wrap: anywhere; }
.entry-id { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--muted); overflow-wrap: anywhere; }
.tags { margin-top: 3px; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; margin: 0 4px 2px 0; border-radius: 9px; background: var(--bg); border: 1px solid var(--border); color: var(--muted); }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; white-space: nowrap; border: 1px solid currentColor; }
.badge-good { color: var(--good); } .badge-warn { color: var(--warn); } .badge-bad { color: var(--bad); } .badge-quiet { color: var(--quiet); }
.decay { min-width: 130px; }
.decay-track { position: relative; height: 10px; border-radius: 5px; background: var(--bg); border: 1px solid var(--border); overflow: hidden; }
.decay-fill { height: 100%; }
.decay-ok { background: var(--ok); } .decay-near { background: var(--near); } .decay-last-chance { background: var(--last-chance); } .decay-archived { background: var(--archived); }
.decay-past-limit { background: repeating-linear-gradient(45deg, var(--past-limit) 0 6px, #e57373 6px 12px); }
.decay-mark { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--fg); opacity: 0.35; }
.decay-text { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.decay[data-state="near"] .decay-text { color: var(--warn); } .decay[data-state="last-chance"] .decay-text, .decay[data-state="past-limit"] .decay-text { color: var(--bad); font-weight: 600; }
.spark { display: block; }
.spark-axis { stroke: var(--border); stroke-width: 1; }
.spark-injected { fill: var(--injected); } .spark-held { fill: var(--held); } .spark-independent { fill: var(--independent); } .spark-primed { fill: var(--primed); }
.ind { color: var(--independent); } .pri { color: var(--primed); } .held { color: var(--warn); }
.details { padding: 6px 4px 10px; }
.details .finding { margin: 0 0 8px; max-width: 900px; overflow-wrap: anywhere; }
.details dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 8px; font-size: 13px; }
.details dt { color: var(--muted); } .details dd { margin: 0; overflow-wrap: anywhere; }
ul.warnings { margin: 6px 0 10px; padding-left: 18px; color: var(--warn); }
ul.warnings li { overflow-wrap: anywhere; }
.chart { position: relative; height: 220px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 14px; }
.agent { padding: 12px 14px; }
.agent.wide { grid-column: 1 / -1; }
.stats { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin-bottom: 6px; }
.stats b { color: var(--fg); }
.chip { font: inherit; font-size: 12px; padding: 2px 10px; border-radius: 12px; border: 1px solid var(--border); background: var(--card); color: var(--muted); cursor: pointer; }
.chip.on { background: var(--fg); color: var(--bg); border-color: var(--fg); }
ol.timeline { list-style: none; margin: 0; padding: 0; background: var(--card); border: 1px solid var(--border); border-radius: 8px; max-height: 560px; overflow-y: auto; }
.event { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; padding: 7px 12px; border-bottom: 1px solid var(--border); }
.event:last-child { border-bottom: none; }
.event time { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--muted); min-width: 120px; }
.event-entry { font-weight: 600; overflow-wrap: anywhere; }
.event-detail { overflow-wrap: anywhere; }
.event-who { color: var(--muted); font-size: 12px; }
footer { margin-top: 40px; font-size: 12px; }
noscript p { color: var(--bad); }
`;
