// The report page: charts over runs, drawn by Chart.js (bundled into the page, see src/report/assets.ts).
// Bars: what was given (injected, withheld by holdout); lines: what was found (independent, primed).

declare const Chart: typeof import("chart.js").Chart;
type ChartConfiguration = import("chart.js").ChartConfiguration;

/** The page's colours (CSS custom properties), so charts and badges agree. */
function colour(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(`--${name}`).trim() || "#888";
}

function setUpCharts(): void {
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = colour("muted");
  Chart.defaults.borderColor = colour("grid");
}

/** Sparse points (runs with nothing left out) as one value per run. */
function dense(points: readonly RunPoint[], runs: number, key: "injected" | "heldOut" | "independent" | "primed"): number[] {
  const out = new Array<number>(runs).fill(0);
  for (const p of points) if (p.run < runs) out[p.run] = p[key];
  return out;
}

type RunChartLabels = { injected: string; heldOut: string; independent: string; primed: string };

/** One chart of a run series in a fixed-height box; returns the box (the canvas is inside). */
function runChart(model: Model, points: readonly RunPoint[], labels: RunChartLabels, name: string): HTMLElement {
  const canvas = h("canvas", { role: "img", "aria-label": name, "data-chart": name });
  const box = h("div", { class: "chart" }, canvas);
  const n = model.runs.length;
  const config: ChartConfiguration = {
    type: "bar",
    data: {
      labels: model.runs.map((r) => r.label),
      datasets: [
        { type: "bar", label: labels.injected, data: dense(points, n, "injected"), backgroundColor: colour("injected"), stack: "given", order: 2 },
        { type: "bar", label: labels.heldOut, data: dense(points, n, "heldOut"), backgroundColor: colour("held"), stack: "given", order: 2 },
        { type: "line", label: labels.independent, data: dense(points, n, "independent"), borderColor: colour("independent"), backgroundColor: colour("independent"), borderWidth: 2, pointRadius: 3, tension: 0, order: 1 },
        { type: "line", label: labels.primed, data: dense(points, n, "primed"), borderColor: colour("primed"), backgroundColor: colour("primed"), borderWidth: 2, borderDash: [5, 3], pointRadius: 3, tension: 0, order: 1 },
      ],
    },
    options: {
      interaction: { mode: "index", intersect: false },
      scales: {
        x: { stacked: true, title: { display: true, text: "runs (oldest → newest)" }, ticks: { autoSkip: true, maxRotation: 0 } },
        y: { beginAtZero: true, grace: "10%", ticks: { precision: 0 } },
      },
      plugins: {
        legend: { position: "bottom", labels: { boxWidth: 12 } },
        tooltip: {
          callbacks: {
            title: (items) => {
              const run = model.runs[items[0]?.dataIndex ?? -1];
              return run ? `${run.label} · ${when(run.time)}${run.origin ? ` · ${run.origin}` : ""}` : "";
            },
          },
        },
      },
    },
  };
  // Drawn once the box is in the document and has a size.
  requestAnimationFrame(() => new Chart(canvas, config));
  return box;
}

/**
 * An entry's confirmations over runs as a tiny SVG: independent above the line, primed below,
 * a grey tick where it was injected, an amber one where it was withheld.
 */
function sparkline(model: Model, entry: ReportEntry): SVGSVGElement {
  const width = 120;
  const height = 28;
  const mid = height / 2;
  const n = Math.max(model.runs.length, 1);
  const step = width / n;
  const bar = Math.max(1, Math.min(6, step - 1));
  const top = Math.max(1, ...entry.series.map((p) => Math.max(p.independent, p.primed)));
  const scale = (mid - 2) / top;
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "spark", role: "img" });
  const i = entry.confirmations.independent;
  const p = entry.confirmations.primed;
  root.setAttribute("aria-label", `${entry.id}: ${plural(i, "independent confirmation")}, ${plural(p, "primed confirmation")} over ${plural(model.runs.length, "run")}`);
  root.appendChild(svg("line", { x1: 0, x2: width, y1: mid, y2: mid, class: "spark-axis" }));
  for (const point of entry.series) {
    const x = point.run * step + (step - bar) / 2;
    if (point.injected) root.appendChild(svg("rect", { x, y: mid - 1, width: bar, height: 2, class: "spark-injected" }));
    if (point.heldOut) root.appendChild(svg("rect", { x, y: mid - 2, width: bar, height: 4, class: "spark-held" }));
    if (point.independent) root.appendChild(svg("rect", { x, y: mid - point.independent * scale - 1, width: bar, height: point.independent * scale, class: "spark-independent" }));
    if (point.primed) root.appendChild(svg("rect", { x, y: mid + 1, width: bar, height: point.primed * scale, class: "spark-primed" }));
  }
  return root;
}
