/**
 * `cairn lsp`: a language server over stdio for knowledge entry files (vscode-languageserver).
 * Wiring only — each feature is its own module. stdout is the protocol: every message, warning
 * and error goes to the client as window/logMessage, never as text (or a stack trace) on stdout,
 * and no request, notification or hostile buffer ends the server.
 */
import path from "node:path";
import {
  CodeActionKind,
  createConnection,
  DidChangeWatchedFilesNotification,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type Position,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { CONFIG_FILE } from "../config.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { openKnowledgeBase, type KnowledgeBase } from "../knowledge-base.js";
import { entryFileFor } from "../store/files.js";
import { findRoot } from "../store/layout.js";
import { codeActions, FIX_ALL_KIND } from "./actions.js";
import { complete } from "./completion.js";
import { definition } from "./definition.js";
import { toLspDiagnostics } from "./diagnostics.js";
import { uriToPath } from "./documents.js";
import { Freshness } from "./freshness.js";
import { hover } from "./hover.js";
import { isPosition } from "./positions.js";
import { PassScheduler } from "./schedule.js";
import { Workspace, type OpenEntry } from "./workspace.js";
import { VERSION } from "../version.js";

export type LspOptions = {
  /** The root was given on the command line (`--root`); otherwise the client's workspace folder picks it. */
  rootGiven: boolean;
  /** How often open entries' anchored files are re-checked for changes (ms; 0 = never). Default 1000. */
  recheckMs?: number;
};


export async function serveLsp(kb: KnowledgeBase, options: LspOptions): Promise<number> {
  const connection = createConnection(process.stdin, process.stdout);
  routeConsole(connection);
  const log = (message: string) => connection.console.error(`cairn: ${message}`);
  const failed = (what: string) => (error: unknown) => log(`${what} failed: ${errorText(error)}`);
  process.on("uncaughtException", failed("internal error"));
  process.on("unhandledRejection", failed("internal error"));

  const ws = new Workspace(kb);
  const documents = new TextDocuments(TextDocument);
  const published = new Map<string, string>();
  const seen = new Set<string>();
  const freshness = new Freshness();
  let warnedProblem: string | undefined;

  const entryOf = (uri: string): OpenEntry | undefined => {
    const doc = documents.get(uri);
    const place = doc ? ws.place(uri) : undefined;
    return doc && place?.kind === "entry" ? { uri, version: doc.version, text: doc.getText(), file: place.file } : undefined;
  };
  const openEntries = (): OpenEntry[] => documents.keys().flatMap((uri) => entryOf(uri) ?? []);

  /** Publish a buffer's diagnostics unless they are what the client already has. */
  const publish = (uri: string, version: number, diagnostics: ReturnType<typeof toLspDiagnostics>) => {
    const key = JSON.stringify(diagnostics);
    if (published.get(uri) === key) return;
    published.set(uri, key);
    void connection.sendDiagnostics({ uri, version, diagnostics }).catch(failed("publishing diagnostics"));
  };

  /** Look at what the open entries depend on (see freshness.ts); true when something changed since the last look. */
  const noticeChanges = async (open: readonly OpenEntry[]): Promise<boolean> => {
    const change = await freshness.check(ws, open);
    if (change.config) await reopen(ws.layout.root, `${CONFIG_FILE} changed`);
    if (change.sources) ws.sourcesChanged();
    if (change.entries) ws.entriesChanged();
    return change.sources || change.entries || change.config;
  };

  /** One pass over every open entry: the rules see each other's buffers, so an edit in one may change another's problems. */
  const pass = async () => {
    for (const doc of documents.all()) {
      const place = ws.place(doc.uri);
      if (place.kind === "escape") publish(doc.uri, doc.version, toLspDiagnostics(doc.getText(), undefined, [place.problem]));
    }
    const entries = openEntries();
    if (!entries.length) return;
    // Stamp what this pass reads before reading it, so that a change made while it runs is noticed by the next look.
    await noticeChanges(entries);
    const publishAll = (results: Map<string, Diagnostic[]>) => {
      for (const e of entries) publish(e.uri, e.version, toLspDiagnostics(e.text, ws.parse(e).entry, results.get(e.file.rel) ?? []));
    };
    if (!ws.warm) {
      // Reading every entry on disk takes seconds at 10,000 entries: until it is done, each buffer's own problems.
      publishAll(await ws.lintAlone(entries));
      void ws.warmUp().then(() => scheduler.request(0), failed("reading the knowledge base"));
      return;
    }
    publishAll(await ws.lint(entries));
    if (ws.problem && ws.problem !== warnedProblem) void connection.window.showWarningMessage(`cairn: ${ws.problem}`);
    warnedProblem = ws.problem;
  };
  const scheduler = new PassScheduler(pass, failed("checking entries"));

  const reopen = async (root: string, why: string) => {
    try {
      ws.reopen(await openKnowledgeBase({ root }));
      log(`${why}: using the knowledge base at ${root}`);
    } catch (error) {
      void connection.window.showErrorMessage(`cairn: ${errorText(error)} (keeping the previous configuration)`);
    }
  };

  let watchFiles = false;
  connection.onInitialize(async (params): Promise<InitializeResult> => {
    if (!options.rootGiven) {
      const folder = uriToPath(params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? "");
      const root = folder !== undefined ? findRoot(folder) : undefined;
      if (root !== undefined && root !== ws.layout.root) await reopen(root, "the client's workspace folder");
    }
    watchFiles = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        hoverProvider: true,
        definitionProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND], resolveProvider: false },
        completionProvider: { triggerCharacters: [":", " ", "-", "[", ","], resolveProvider: false },
      },
      serverInfo: { name: "cairn", version: VERSION },
    };
  });

  connection.onInitialized(() => {
    if (watchFiles) void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: "**/*" }] }).catch(failed("registering file watchers"));
    const every = options.recheckMs ?? 1000;
    if (every > 0) {
      const recheck = async () => {
        const open = openEntries();
        if (open.length && (await noticeChanges(open))) scheduler.request(0);
      };
      const timer = setInterval(() => void recheck().catch(failed("re-checking files")), every);
      timer.unref();
    }
  });

  connection.onDidChangeWatchedFiles(async ({ changes }) => {
    let config = false;
    for (const { uri } of changes ?? []) {
      const abs = uriToPath(uri);
      if (abs === undefined) continue;
      if (abs === path.join(ws.layout.root, CONFIG_FILE)) config = true;
      else if (entryFileFor(ws.layout, abs)) ws.entriesChanged(abs);
      else ws.sourcesChanged();
    }
    if (config) await reopen(ws.layout.root, `${CONFIG_FILE} changed`);
    scheduler.request(0);
  });

  documents.onDidChangeContent(({ document }) => {
    // A buffer just opened is checked at once; edits wait for a pause in typing.
    scheduler.request(seen.has(document.uri) ? scheduler.debounceMs : 0);
    seen.add(document.uri);
  });
  documents.onDidClose(({ document }) => {
    seen.delete(document.uri);
    ws.forget(document.uri);
    published.delete(document.uri);
    void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] }).catch(failed("clearing diagnostics"));
    // Other open entries now see this file as it is on disk.
    if (documents.all().length) scheduler.request();
  });

  const at = <T>(what: string, empty: T, work: (open: OpenEntry, position: Position) => Promise<T>) =>
    async (params: { textDocument?: { uri?: unknown }; position?: unknown }): Promise<T> => {
      try {
        const uri = params?.textDocument?.uri;
        const open = typeof uri === "string" ? entryOf(uri) : undefined;
        if (!open || !isPosition(params.position)) return empty;
        return await work(open, params.position);
      } catch (error) {
        failed(what)(error);
        return empty;
      }
    };
  connection.onHover(at("hover", null, (open, position) => hover(ws, open, position)));
  connection.onDefinition(at("go to definition", null, (open, position) => definition(ws, open, position)));
  connection.onCompletion(at("completion", { isIncomplete: false, items: [] }, (open, position) => complete(ws, open, openEntries(), position)));
  connection.onCodeAction(async (params) => {
    try {
      const open = entryOf(params?.textDocument?.uri);
      if (!open || !isPosition(params.range?.start) || !isPosition(params.range?.end)) return [];
      return await codeActions(ws, open, { range: params.range, context: { diagnostics: Array.isArray(params.context?.diagnostics) ? params.context.diagnostics : [], ...(Array.isArray(params.context?.only) ? { only: params.context.only } : {}) } });
    } catch (error) {
      failed("code actions")(error);
      return [];
    }
  });
  connection.onShutdown(() => scheduler.dispose());

  documents.listen(connection);
  connection.listen();
  // The library ends the process on `exit` (0 after `shutdown`, else 1) or when stdin closes, as the protocol asks.
  return new Promise<number>(() => {});
}

/** Anything a library prints goes to the client's log: stdout carries only protocol messages. */
function routeConsole(connection: Connection): void {
  const send = (level: "log" | "info" | "warn" | "error") => (...args: unknown[]) => connection.console[level](args.map((a) => (typeof a === "string" ? a : errorText(a))).join(" "));
  console.log = send("log");
  console.info = send("info");
  console.debug = send("log");
  console.warn = send("warn");
  console.error = send("error");
}

/** One line for the client's log; a stack only with CAIRN_DEBUG (as the CLI does). */
function errorText(error: unknown): string {
  if (error instanceof Error) return process.env.CAIRN_DEBUG ? (error.stack ?? error.message) : error.message;
  try {
    return typeof error === "string" ? error : JSON.stringify(error);
  } catch {
    return String(error);
  }
}
