/**
 * The command rows of bench/scale.ts: what each runs, what it prepares untimed, whether it needs a
 * fresh index or leaves the knowledge base changed, and its goal from issue 12. A row that mutates
 * does the same work in every repetition: another entry, another run id, other finding texts.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { appendEvents } from "../../src/ledger/append.js";
import type { GeneratedEntry, SourceFile } from "./corpus.js";
import { generateQueries, random } from "./corpus.js";

/** A goal relative to a same-run baseline: `factor` × `node -e ""` or × the parse-all baseline; none for context rows. */
export type Goal = { base: "node" | "parse"; factor: number } | { base: "none"; note: string };

export type RowContext = {
  /** The executable of the build under test (bench/lib/cli-path.ts). */
  cli: string;
  /** The knowledge base root (this build's copy). */
  root: string;
  /** Repetition number, 0-based: picks the entry, run id and texts. */
  rep: number;
  /** Active entries as generated (never archived, never the target of another row). */
  entries: readonly GeneratedEntry[];
  sources: readonly SourceFile[];
  /** The 4 agents of the ledger. */
  agents: readonly string[];
  /** A scratch directory for findings files. */
  scratch: string;
};

export type Row = {
  id: string;
  /** The command as the README shows it. */
  label: string;
  goal: Goal;
  /**
   * Run `cairn index` (untimed) first when an earlier row left the files changed. The mutating rows
   * run one after another as in a review loop (each sees the few files the previous one changed).
   */
  fresh: boolean;
  /** Leaves entry files changed (the next `fresh` row re-indexes first). */
  mutates: boolean;
  /** Exit codes that count as success. Default [0]. */
  okCodes?: readonly number[];
  /** Untimed work before the command (an edit, the run's injections, a findings file). */
  prepare?: (ctx: RowContext) => Promise<void>;
  args: (ctx: RowContext) => string[];
  /** A problem with the command's output (it ran but did not do the work), or undefined. */
  verify?: (stdout: string, ctx: RowContext) => string | undefined;
};

/** A distinct entry per row and repetition (rows never touch each other's entries). */
export function entryFor(ctx: RowContext, salt: number): GeneratedEntry {
  const n = ctx.entries.length;
  return ctx.entries[(ctx.rep * 7_919 + salt * 104_729 + 13) % n]!;
}

const query = (ctx: RowContext) => generateQueries(ctx.rep + 1, 31 + ctx.rep).at(-1)!;

/** Made-up words (deterministic per repetition and slot) so that new findings match no generated entry, no other finding and no other repetition's text. */
const SYLLABLES = ["bra", "quil", "zor", "mef", "tal", "gri", "vun", "pok", "lis", "dre", "hom", "sav", "kel", "nup", "fyr", "wox", "jab", "ceth", "rin", "glo"];
const word = (ctx: RowContext, k: number) => {
  const rand = random(ctx.rep * 1_009 + k * 31 + 7);
  return Array.from({ length: 3 }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join("") + `${ctx.rep}${k}`;
};
const words = (ctx: RowContext, k: number, n: number) => Array.from({ length: n }, (_, i) => word(ctx, k * 10 + i)).join(" ");

function searchResults(stdout: string): string[] {
  try {
    return ((JSON.parse(stdout) as { results?: Array<{ id: string }> }).results ?? []).map((r) => r.id);
  } catch {
    return [];
  }
}

/** The run's injections, as `cairn inject` would have written them before the review (untimed, through the library). */
async function injectRun(ctx: RowContext, run: string, salt: number): Promise<void> {
  const events = ctx.agents.map((agent, a) => ({
    type: "injected" as const,
    run,
    agent,
    entries: [0, 1, 2].map((k) => entryFor(ctx, salt + 10 * a + k).id),
    actor: "review-bot",
  }));
  await appendEvents(path.join(ctx.root, "knowledge", ".ledger"), events);
}

async function findingsFile(ctx: RowContext, name: string, findings: unknown[]): Promise<string> {
  const file = path.join(ctx.scratch, `${name}-${ctx.rep}.json`);
  await writeFile(file, JSON.stringify({ findings }));
  return file;
}

const findingsPath = (ctx: RowContext, name: string) => path.join(ctx.scratch, `${name}-${ctx.rep}.json`);

/** Files for compound's evidence: nothing generated anchors into them (else compound skips the finding as a duplicate). */
export const FRESH_SOURCES = 24;
export const freshSource = (rep: number) => `packages/fresh/src/module${rep % FRESH_SOURCES}.ts`;
export function freshSourceText(rep: number): string {
  const lines = [`// ${freshSource(rep)}`, ""];
  for (let k = 0; k < 6; k++) lines.push(`export function step${k}(input: string): string {`, "  const value = input.trim();", "  if (!value) return input;", "  return value;", "}", "");
  return lines.join("\n");
}

async function record(ctx: RowContext, count: number): Promise<void> {
  const run = `scale-record${count}-${ctx.rep}`;
  await injectRun(ctx, run, 200 + count);
  const findings = Array.from({ length: count }, (_, k) => {
    if (k % 2 === 0) {
      // A restatement of an existing entry: an independent confirmation that edits its file.
      const e = entryFor(ctx, 300 + count * 40 + k);
      return { agent: e.agent, text: `${e.finding} Seen again in this change.` };
    }
    return { agent: ctx.agents[k % ctx.agents.length]!, text: `The ${words(ctx, k, 3)} renderer recomputes layout for hidden panels on every scroll event; throttle it.` };
  });
  await findingsFile(ctx, `record${count}`, findings);
}

/** Five findings that share no content words, each filled with made-up words per repetition. */
const COMPOUND_TEMPLATES = [
  "Retries of $ duplicate invoices when the gateway times out.",
  "Thumbnails for $ never expire after uploads are replaced.",
  "Nightly exports of $ silently truncate unicode surnames.",
  "Session cookies named $ survive password resets.",
  "Migrations touching $ lock whole tables during backfills.",
];

export const ROWS: readonly Row[] = [
  {
    id: "show",
    label: "`show ID`",
    goal: { base: "node", factor: 4 },
    fresh: false,
    mutates: false,
    args: (ctx) => ["show", entryFor(ctx, 1).id],
  },
  {
    id: "status",
    label: "`status`",
    goal: { base: "node", factor: 6 },
    fresh: false,
    mutates: false,
    args: () => ["status"],
  },
  {
    id: "search",
    label: "`search` (index fresh)",
    goal: { base: "node", factor: 6 },
    fresh: true,
    mutates: false,
    args: (ctx) => ["search", query(ctx).query, "--json"],
    verify: (stdout) => (searchResults(stdout).length ? undefined : "no results"),
  },
  {
    id: "inject",
    label: "`inject` (keywords + summary + changed files)",
    goal: { base: "node", factor: 6 },
    fresh: true,
    mutates: false,
    args: (ctx) => {
      const q = query(ctx);
      const changed = [0, 1, 2].map((k) => ctx.sources[(ctx.rep * 3 + k * 37) % ctx.sources.length]!.rel);
      return ["inject", "--run", `scale-inject-${ctx.rep}`, "--agent", q.agent, "--keywords", q.keywords.join(","), "--summary", q.summary, "--changed-files", ...changed];
    },
  },
  {
    id: "index",
    label: "`index` with nothing changed",
    goal: { base: "node", factor: 6 },
    fresh: true,
    mutates: false,
    args: () => ["index"],
  },
  {
    id: "check",
    label: "`check` (must read everything)",
    goal: { base: "parse", factor: 1.5 },
    fresh: false,
    mutates: false,
    // 1: problems found (the generated corpus has a few warnings); still a complete check.
    okCodes: [0, 1],
    args: () => ["check"],
  },
  {
    id: "search-edit",
    label: "`search` after one text edit",
    goal: { base: "none", note: "no goal of its own in issue 12" },
    fresh: true,
    mutates: false,
    prepare: async (ctx) => {
      const e = entryFor(ctx, 2);
      const file = path.join(ctx.root, e.rel);
      const lines = (await readFile(file, "utf8")).split("\n");
      lines[lines.indexOf("---", 1) + 1] = editText(ctx);
      await writeFile(file, lines.join("\n"));
    },
    args: (ctx) => ["search", editText(ctx), "--json", "--limit", "3"],
    verify: (stdout, ctx) => {
      const ids = searchResults(stdout);
      return ids[0] === entryFor(ctx, 2).id ? undefined : `the edited entry is not the top result (got ${ids[0] ?? "nothing"})`;
    },
  },
  {
    id: "confirm",
    label: "`confirm ID`",
    goal: { base: "node", factor: 4 },
    fresh: false,
    mutates: true,
    args: (ctx) => ["confirm", entryFor(ctx, 3).id],
  },
  {
    id: "record-1",
    label: "`record` of 1 finding",
    goal: { base: "node", factor: 4 },
    fresh: false,
    mutates: true,
    prepare: (ctx) => record(ctx, 1),
    args: (ctx) => ["record", "--run", `scale-record1-${ctx.rep}`, "--findings", findingsPath(ctx, "record1"), "--json"],
    verify: (stdout) => confirmations(stdout, 1),
  },
  {
    id: "record-20",
    label: "`record` of 20 findings",
    goal: { base: "node", factor: 8 },
    fresh: false,
    mutates: true,
    prepare: (ctx) => record(ctx, 20),
    args: (ctx) => ["record", "--run", `scale-record20-${ctx.rep}`, "--findings", findingsPath(ctx, "record20"), "--json"],
    verify: (stdout) => confirmations(stdout, 10),
  },
  {
    id: "compound-5",
    label: "`compound` of 5",
    goal: { base: "node", factor: 8 },
    fresh: false,
    mutates: true,
    prepare: async (ctx) => {
      const run = `scale-compound-${ctx.rep}`;
      await injectRun(ctx, run, 500);
      const file = freshSource(ctx.rep);
      const findings = Array.from({ length: 5 }, (_, k) => ({
        text: `${COMPOUND_TEMPLATES[k]!.replace("$", words(ctx, k, 5))}`,
        agents: [ctx.agents[k % ctx.agents.length]!, ctx.agents[(k + 1) % ctx.agents.length]!],
        evidence: [`${file}:${3 + 6 * k}-${7 + 6 * k}, step${k}() — trims but never invalidates.`],
        verify: [`search for step${k}( under packages/fresh/src/ and confirm the cache is cleared on reload.`],
        durable: true,
      }));
      await findingsFile(ctx, "compound5", findings);
    },
    args: (ctx) => ["compound", "--run", `scale-compound-${ctx.rep}`, "--findings", findingsPath(ctx, "compound5"), "--json"],
    verify: (stdout) => {
      try {
        const created = (JSON.parse(stdout) as { created?: string[] }).created ?? [];
        return created.length === 5 ? undefined : `created ${created.length} of 5 entries`;
      } catch {
        return "output is not JSON";
      }
    },
  },
];

/** `record --json` confirmed at least `expected` findings (the restatements of existing entries). */
function confirmations(stdout: string, expected: number): string | undefined {
  try {
    const n = ((JSON.parse(stdout) as { confirmations?: unknown[] }).confirmations ?? []).length;
    return n >= expected ? undefined : `confirmed ${n} of ${expected} restated entries`;
  } catch {
    return "output is not JSON";
  }
}

function editText(ctx: RowContext): string {
  return `The ${words(ctx, 9, 2)} exporter drops trailing rows when its buffer flushes during shutdown (edit ${ctx.rep}).`;
}
