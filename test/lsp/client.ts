/**
 * A real LSP client over stdio: spawns the built CLI's `cairn lsp --stdio` and speaks JSON-RPC to
 * it with vscode-languageserver-protocol's connection, as an editor does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";
import { CLI } from "../helpers/cli.js";
import { releaseAfterEachTest } from "../helpers/cleanup.js";

export type Publication = { uri: string; version?: number; diagnostics: Diagnostic[] };

export type LspClient = {
  connection: ProtocolConnection;
  initialize: InitializeResult;
  child: ChildProcessWithoutNullStreams;
  /** Every diagnostics publication, in order. */
  published: Publication[];
  /** Every window/logMessage and window/showMessage text. */
  logs: string[];
  stderr(): string;
  uri(rel: string): string;
  open(rel: string, text: string, version?: number): string;
  /** Replace the whole buffer (a full-text change). */
  change(uri: string, text: string, version: number): void;
  close(uri: string): void;
  /** The first publication for `uri`, from now or the latest one already in, that satisfies `accept`. */
  diagnostics(uri: string, accept: (list: Diagnostic[]) => boolean, timeoutMs?: number): Promise<Diagnostic[]>;
  request<R>(method: string, params: unknown): Promise<R>;
  stop(): Promise<void>;
};

const running: LspClient[] = [];
releaseAfterEachTest("processes", async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
});

const CAPABILITIES: ClientCapabilities = {
  workspace: { didChangeWatchedFiles: { dynamicRegistration: true } },
  textDocument: {
    publishDiagnostics: { versionSupport: true },
    hover: { contentFormat: ["markdown", "plaintext"] },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix", "source.fixAll"] } } },
  },
};

/**
 * Start `cairn --root ROOT lsp --stdio`; `args` replaces `--root ROOT`, `cwd` is the server's working
 * directory (default ROOT). Stopped after the current test, unless `keep` (the caller stops it).
 */
export async function startLsp(root: string, options: { args?: string[]; cwd?: string; keep?: boolean } = {}): Promise<LspClient> {
  const child = spawn(process.execPath, [CLI, ...(options.args ?? ["--root", root]), "lsp", "--stdio"], { cwd: options.cwd ?? root, env: { ...process.env, NO_COLOR: "1" } });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published: Publication[] = [];
  const logs: string[] = [];
  const waiters = new Set<() => void>();
  connection.onNotification("textDocument/publishDiagnostics", (p: Publication) => {
    published.push(p);
    for (const w of [...waiters]) w();
  });
  connection.onNotification("window/logMessage", (p: { message: string }) => void logs.push(p.message));
  connection.onNotification("window/showMessage", (p: { message: string }) => void logs.push(p.message));
  connection.onRequest("client/registerCapability", () => null);
  connection.listen();
  const initialize = await connection.sendRequest<InitializeResult>("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: CAPABILITIES,
  });
  await connection.sendNotification("initialized", {});
  const uri = (rel: string) => pathToFileURL(path.join(root, rel)).href;

  const client: LspClient = {
    connection,
    initialize,
    child,
    published,
    logs,
    stderr: () => stderr,
    uri,
    open(rel, text, version = 1) {
      const u = rel.startsWith("file:") ? rel : uri(rel);
      void connection.sendNotification("textDocument/didOpen", { textDocument: { uri: u, languageId: "markdown", version, text } });
      return u;
    },
    change(u, text, version) {
      void connection.sendNotification("textDocument/didChange", { textDocument: { uri: u, version }, contentChanges: [{ text }] });
    },
    close(u) {
      void connection.sendNotification("textDocument/didClose", { textDocument: { uri: u } });
    },
    diagnostics(u, accept, timeoutMs = 10_000) {
      const from = published.length;
      const latest = [...published].reverse().find((p) => p.uri === u);
      if (latest && accept(latest.diagnostics)) return Promise.resolve(latest.diagnostics);
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = published.slice(from).find((p) => p.uri === u && accept(p.diagnostics));
          if (!match) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match.diagnostics);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const seen = published.filter((p) => p.uri === u).map((p) => JSON.stringify(p.diagnostics.map((d) => `${d.code}@${d.range.start.line}`)));
          reject(new Error(`no matching diagnostics for ${u} within ${timeoutMs} ms; published: ${seen.join(" | ") || "nothing"}; logs: ${logs.join(" | ")}; stderr: ${stderr}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    request: (method, params) => connection.sendRequest(method, params),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
        try {
          await Promise.race([connection.sendRequest("shutdown"), new Promise((resolve) => setTimeout(resolve, 2000))]);
          await connection.sendNotification("exit");
        } catch {
          // The server is gone already.
        }
        const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
        await exited;
        clearTimeout(timer);
      }
      connection.dispose();
    },
  };
  if (!options.keep) running.push(client);
  return client;
}

/** Codes (rule ids) of a diagnostics list, sorted. */
export function codes(list: readonly Diagnostic[]): string[] {
  return list.map((d) => String(d.code)).sort();
}
