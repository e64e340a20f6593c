/** cairn's commands and options (commander): every action runs through the runner it is built with, and lazily imports its module. */
import { Command, InvalidArgumentError, Option } from "commander";
import { CairnError } from "../errors.js";
import { EXIT, type Io } from "./output.js";
import type { KnowledgeBase } from "../knowledge-base.js";
import { VERSION } from "../version.js";
import { FORWARDED_COMMANDS } from "./serve/protocol.js";

export type Action = (kb: KnowledgeBase, io: Io) => Promise<number>;

/**
 * `here`: the command works in the working directory itself (init), never in an ancestor.
 * `forward`: a running `cairn watch` of the same root may run the command for this process (its inputs are
 * arguments, files and stdin; it neither opens an editor nor runs until stopped).
 */
export type RunOptions = { here?: boolean; forward?: boolean };

/** Runs one command's action: in this process (the CLI) or for a forwarded command (`cairn watch`). */
export type Runner = (program: Command, action: Action, options?: RunOptions) => Promise<void>;

/** Whether a running `cairn watch` may run this command (serve/protocol.ts lists them; the client reads the list before loading this file). */
const via = (name: string): RunOptions => ({ forward: FORWARDED_COMMANDS.has(name) });

/** `silent`: commander prints no help or usage error (a watcher parsing a forwarded command line declines instead). */
export function buildProgram(run: Runner, options: { silent?: boolean } = {}): Command {
  const program = new Command("cairn");
  if (options.silent) program.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  program
    .description("File-based, git-friendly knowledge for AI code-review orchestrators.")
    .option("--root <dir>", "project root (default: nearest ancestor with knowledge/ or cairn.config.json, up to the git repository's top; init: the working directory)")
    .showHelpAfterError("(run cairn --help for usage)")
    .exitOverride();
  program.version(VERSION, "-V, --version");

  program
    .command("init")
    .description("create knowledge/, knowledge/archive/, knowledge/.ledger/ and the .gitattributes/.gitignore lines (idempotent)")
    .option("--json", "print JSON")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/init.js")).init(kb, io, opts), { here: true }));

  program
    .command("new [slug]")
    .description(
      "write a new entry (refuses without evidence or verify steps, on an existing id, or on sanitization errors); " +
        "without --finding or --from, opens $VISUAL or $EDITOR on a template",
    )
    .option("--finding <text>", "the finding: 1–3 sentences, a generalised heuristic")
    .option("--from <file>", "read the entry from FILE ('-' for stdin): an entry's markdown, or JSON {slug?, finding, evidence[], verify[], title?, tags?, agents?}; flags override its fields")
    .option("--evidence <anchor...>", "evidence anchors, e.g. 'src/auth.ts:47-52, handleRequest() — note'")
    .option("--verify <step...>", "verification steps (1–3)")
    .option("--title <text>", "optional title")
    .option("--tags <list>", "comma-separated tags")
    .option("--agents <list>", "comma-separated agent names or domains")
    .option("--json", "print JSON")
    .addHelpText("after", "\nSLUG defaults to the id in --from, else a slug of the title or finding.")
    .action((slug, opts) => run(program, async (kb, io) => (await import("./commands/new.js")).newEntry(kb, io, slug, opts)));

  program
    .command("check [paths...]")
    .description("validate entries: schema, sections, anchors, ids, references, sanitization, prompt injection")
    .option("--json", "same as --format json")
    .addOption(new Option("--format <format>", "output format (github: workflow annotations; sarif: SARIF 2.1.0 for code scanning)").choices(["human", "json", "github", "sarif"]).default("human"))
    .option("--strict", "warnings fail the check too")
    .option("--no-anchors", "skip resolving evidence anchors against the repository")
    .option("--duplicates", "also report near-duplicate entries (uses the search index and embedding model)")
    .option("--fix", "repair drifted anchors in place: moved line ranges and renamed paths (only the anchor text changes)")
    .option("--dry-run", "with --fix: show the edits without writing them")
    .action((paths, opts) => run(program, async (kb, io) => (await import("./commands/check.js")).check(kb, io, paths, opts)));

  program
    .command("verify [ids...]")
    .description("run entries' grep-like verify steps in-process (never a shell) and record the results in the ledger")
    .option("--json", "same as --format json")
    .addOption(new Option("--format <format>", "output format").choices(["human", "json", "github"]).default("human"))
    .option("--strict", "exit 1 when a verification failed")
    .option("--dry-run", "run the steps without recording the results")
    .action((ids, opts) => run(program, async (kb, io) => (await import("./commands/verify.js")).verify(kb, io, ids, opts)));

  program
    .command("status")
    .description("list entries with decay counter (runs/N), provenance, last confirmation, confirmation counts, warnings")
    .option("--all", "include archived entries")
    .option("--json", "print JSON")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/status.js")).status(kb, io, opts), via("status")));

  program
    .command("report")
    .description("write a static HTML report (opens from disk, no server, no network): every entry's decay, confirmations over runs, holdout evidence, verification and anchor drift; per-agent charts; the lifecycle timeline")
    .option("--out <dir>", "directory for index.html (or a file ending in .html), inside the repository (default .cairn/report)")
    .option("--runs <n>", "chart only the last N runs (counters still cover the whole ledger)", positiveInt)
    .option("--json", "print the report's data instead of writing the page")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/report.js")).report(kb, io, opts)));

  program
    .command("diff <base> [head]")
    .description("markdown summary of knowledge changes between two git revisions, for a PR comment (no HEAD: the working tree; BASE...HEAD: from the merge base)")
    .option("--json", "print JSON")
    .action((base, head, opts) => run(program, async (kb, io) => (await import("./commands/diff.js")).diff(kb, io, base, head, opts)));

  for (const [name, description] of [
    ["confirm", "mark an entry independently confirmed today (lastConfirmed, provenance: independent)"],
    ["retract", "delete an entry's file (git keeps the history) and record the retraction"],
    ["restore", "move an archived entry back to knowledge/ and confirm it today"],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(description)
      .option("--json", "print JSON")
      .action((id, opts) => run(program, async (kb, io) => (await import("./commands/manual.js")).manual(kb, io, name, id, opts), via(name)));
  }

  program
    .command("show <id>")
    .description("print an entry's file (markdown) with its status and problems on stderr; unknown ids exit 1 with suggestions")
    .option("--json", "print the text, parsed fields, status row and problems as JSON")
    .action((id, opts) => run(program, async (kb, io) => (await import("./commands/show.js")).show(kb, io, id, opts), via("show")));

  program
    .command("index")
    .description("build or update the search index in .cairn/ (incremental: only changed entries are embedded)")
    .option("--rebuild", "discard the index and build it from scratch")
    .option("--json", "print JSON")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/index-cmd.js")).index(kb, io, opts)));

  program
    .command("search <query>")
    .description("search active entries: code-aware BM25F fused with changed-file and embedding signals (see README for the measured weights)")
    .option("--limit <n>", "maximum results (default 10)", positiveInt)
    .option("--explain", "show lexical rank, evidence, vector rank and changed-code touch for each result, and the best candidates below the relevance floor with the reasons they were cut")
    .option("--include-archived", "search archived entries too")
    .option("--agent <name>", "only entries meant for this agent")
    .option("--changed-files <path...>", "boost entries whose anchors touch these files")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nEach result shows its title and id, a relevance, its path and a snippet of the finding with the query's words marked." +
        "\nRelevance counts the query's words (stemmed, without stopwords) the entry contains: strong from 75%, good from 40%, else weak;" +
        "\nresults are still ranked by the fused score (BM25F weighs rare words more)." +
        "\n--explain shows the ranks and fusion scores instead.",
    )
    .action((query, opts) => run(program, async (kb, io) => (await import("./commands/search.js")).search(kb, io, query, opts), via("search")));

  program
    .command("watch")
    .description("keep the search index current while entries are edited (debounced; holds the index lock); while it runs, status, show, search, inject, confirm, record and the other lifecycle commands of this repository run in it, with its index warm")
    .option("--debounce <ms>", "quiet period before re-indexing (default 150)", positiveInt)
    .option("--no-serve", "do not run other cairn commands of this repository for them (see README: a running watcher)")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/watch.js")).watch(kb, io, opts)));

  program
    .command("inject")
    .description("print the Knowledge Context for one agent in one run (at most maxPerAgent entries per agent per run) and record it")
    .requiredOption("--run <id>", "run id chosen by the orchestrator")
    .requiredOption("--agent <name>", "agent name")
    .option("--keywords <list...>", "the agent's domain keywords (comma-separated or repeated)")
    .option("--summary <text>", "summary of the document under review")
    .option("--summary-file <file>", "read the summary from a file ('-' for stdin)")
    .option("--changed-files <path...>", "changed files: entries anchored on them are boosted")
    .option("--diff <file>", "the change as a unified diff ('-' for stdin): changed lines and symbols are strong evidence, its code joins the query")
    .option("--explain", "also list (on stderr, or in JSON) the best candidates not injected and why")
    .option("--limit <n>", "lower the cap for this call (cannot raise maxPerAgent)", positiveInt)
    .option("--max-tokens <n>", "token budget of the Knowledge Context (o200k_base tokens; default maxInjectTokens, 4000)", positiveInt)
    .addOption(new Option("--format <format>", "output format").choices(["markdown", "json"]).default("markdown"))
    .option("--include-disputed", "also inject disputed entries")
    .option("--include-superseded", "also inject superseded entries")
    .option("--dry-run", "show the context without recording the injection")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/inject.js")).inject(kb, io, opts), via("inject")));

  program
    .command("record")
    .description("record a run's findings: independent re-discoveries refresh entries, primed ones do not; then decay")
    .requiredOption("--run <id>", "run id")
    .requiredOption("--findings <file>", "JSON findings file, or '-' for stdin")
    .option("--dry-run", "show matches, scores and provenance without writing")
    .option("--strict", "refuse when the run or an agent has no recorded injection (default: record with a warning)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `
The findings file (JSON): one object per finding an agent reported in this run.
  {"findings": [
    {"agent": "security", "text": "Tokens are compared with == instead of a constant-time compare.",
     "entry": "token-compare",                  (optional: the entry id the agent cited)
     "evidence": ["src/auth.ts:40-52, check()"], (optional: helps matching)
     "verify": ["grep for == token in src/"]}     (optional)
  ]}
An agent that was not shown the matched entry in this run confirms it independently; one that was is primed.`,
    )
    .action((opts) => run(program, async (kb, io) => (await import("./commands/review.js")).record(kb, io, opts), via("record")));

  program
    .command("compound")
    .description("turn converging findings (2+ independent agents, durable, with evidence and verify) into entries")
    .requiredOption("--run <id>", "run id")
    .requiredOption("--findings <file>", "JSON synthesized findings file, or '-' for stdin")
    .option("--dry-run", "show what would be created, restored or skipped")
    .option("--strict", "refuse when the run or an agent has no recorded injection (default: compound with a warning)")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `
The findings file (JSON): findings synthesised across the run's agents.
  {"findings": [
    {"text": "Queue consumers reset the retry budget whenever a message is redelivered.",
     "agents": ["security", "performance"],        (the agents that found it)
     "evidence": ["src/queue.ts:12-30, consume()"],
     "verify": ["grep for retryBudget = in src/queue.ts"],
     "durable": true,                               (a pattern worth keeping, not a one-off bug)
     "title": "…", "tags": ["queues"]}              (optional)
  ]}
A finding becomes an entry when 2+ agents that were not primed found it, it is durable, has evidence and verify
steps, passes the checks and is no duplicate; one that recurs an archived entry restores it.`,
    )
    .action((opts) => run(program, async (kb, io) => (await import("./commands/review.js")).compound(kb, io, opts), via("compound")));

  program
    .command("decay")
    .description("archive entries injected in decayAfterRuns runs without an independent confirmation")
    .option("--dry-run", "list what would be archived")
    .option("--json", "print JSON")
    .action((opts) => run(program, async (kb, io) => (await import("./commands/review.js")).decay(kb, io, opts), via("decay")));

  program
    .command("supersede <old> <new>")
    .description("link OLD → NEW (supersededBy / supersedes) and archive OLD")
    .option("--json", "print JSON")
    .action((oldId, newId, opts) => run(program, async (kb, io) => (await import("./commands/links.js")).supersede(kb, io, oldId, newId, opts), via("supersede")));

  program
    .command("set-status <id> <status>")
    .description("change an entry's claim status (observed, inferred, hypothesis, verified, disputed); transitions are validated")
    .option("--json", "print JSON")
    .action((id, status, opts) => run(program, async (kb, io) => (await import("./commands/links.js")).setStatus(kb, io, id, status, opts), via("set-status")));

  program
    .command("history <id>")
    .description("an entry's ledger events (injections, confirmations, archive/restore) and its git log")
    .option("--json", "print JSON")
    .action((id, opts) => run(program, async (kb, io) => (await import("./commands/links.js")).history(kb, io, id, opts), via("history")));

  program
    .command("mcp")
    .description("run the MCP server on stdio, or with --http on Streamable HTTP (tools: search, inject, record_findings, compound, status, check, get_entry, history, confirm, new_entry, diff, verify)")
    .option("--http <port>", "serve Streamable HTTP at http://HOST:PORT/mcp (GET /health too) instead of stdio; 0 picks a free port", port)
    .option("--host <host>", "interface for --http (default 127.0.0.1; anything else serves without authentication)")
    .option("--max-sessions <n>", "sessions --http keeps open at once; past it the least recently used idle one is closed (default 100)", positiveInt)
    .action((opts: { http?: number; host?: string; maxSessions?: number }) =>
      run(program, async (kb) => {
        if (opts.host !== undefined && opts.http === undefined) throw new CairnError("USAGE", "--host only applies with --http PORT, e.g. cairn mcp --http 8765 --host 127.0.0.1");
        if (opts.maxSessions !== undefined && opts.http === undefined) throw new CairnError("USAGE", "--max-sessions only applies with --http PORT, e.g. cairn mcp --http 8765 --max-sessions 20");
        // An orchestrator pointed at the wrong root must hear it at once, not get an empty knowledge base.
        await (await import("../store/require.js")).requireKnowledgeDir(kb.layout);
        if (opts.http === undefined) return (await import("../mcp/server.js")).serveStdio(kb);
        return (await import("../mcp/http.js")).serveHttp(kb, { port: opts.http, ...(opts.host ? { host: opts.host } : {}), ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}) });
      }),
    );

  program
    .command("lsp")
    .description("run the language server on stdio for entry files: live diagnostics (the rules of check), hover and go to definition on evidence anchors, quick fixes for drifted anchors, frontmatter completion")
    .option("--stdio", "talk LSP over stdin/stdout (the default and only transport; accepted because editors pass it)")
    .addOption(new Option("--clientProcessId <pid>", "exit when this process ends (passed by some clients)").hideHelp())
    .action(() => run(program, async (kb) => (await import("../lsp/server.js")).serveLsp(kb, { rootGiven: program.opts<{ root?: string }>().root !== undefined })));

  program
    .command("schema")
    .description("print the JSON Schema of entry frontmatter (for editors' YAML validation)")
    .action(() => run(program, async (kb, io) => (io.out(JSON.stringify(kb.schema(), null, 2)), EXIT.ok)));

  // A usage error in a command points at that command's help (its options, and for record and compound the file format).
  for (const command of program.commands) command.showHelpAfterError(`(run cairn ${command.name()} --help for usage)`);
  return program;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`expected a TCP port 0–65535, got "${value}"`);
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive whole number, got "${value}"`);
  return n;
}
