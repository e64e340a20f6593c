/** `cairn mcp`: the MCP server over stdio (HTTP: ./http.ts). A thin layer: every tool is one call into the KnowledgeBase. */
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isCairnError } from "../errors.js";
import type { KnowledgeBase } from "../knowledge-base.js";
import { MAX_ACTOR_LENGTH, toActorName } from "../text/actor-name.js";
import { HIDDEN_CHARS } from "../text/invisible.js";
import { trackRequests } from "./drain.js";
import { TOOLS } from "./tools.js";
import { VERSION } from "../version.js";
export { VERSION };


export type ServeOptions = {
  /** Stream the client's messages arrive on. Default `process.stdin`. */
  stdin?: Readable;
  /** Stream protocol messages are written to (nothing else may be). Default `process.stdout`. */
  stdout?: Writable;
  /** Where logs go. Default: a line to `process.stderr`. */
  log?: (message: string) => void;
};

/** What the server tells a connecting agent (MCP `instructions`): the review loop and which tool serves which step. */
export const INSTRUCTIONS = `cairn keeps this project's code-review knowledge: short entries (a finding, evidence anchors into the code, verify steps) that later reviews re-discover or let decay into an archive.

The loop for one review run (use the same run id in every call of that review):
1. inject — before the review, once per agent: inject {run, agent, keywords, summary, changedFiles, diff}. Put the returned markdown into that agent's prompt. At most 5 entries per agent per run; the injection is recorded.
2. review — the agents treat the entries as leads to verify in the code, not as facts.
3. record — after the review: record_findings {run, findings: [{agent, text, entry?}]}. Set entry to an entry's id when a finding restates it. A re-discovery by an agent that was not shown the entry confirms it; one that was shown it (primed) does not. Entries that stop being re-discovered decay.
4. compound — compound {run, findings: [{text, agents, evidence, verify, durable}]} turns findings that 2+ agents flagged independently into new entries.

Also: search and get_entry to look entries up; status and history for decay counters and events; check to validate entries; new_entry and confirm for deliberate edits; diff for a pull request's knowledge changes; verify to run entries' mechanical verify steps (in-process pattern search, results recorded).`;

/** An MCP server exposing the tools in TOOLS for `kb` (connect it to any transport). */
export function createServer(kb: KnowledgeBase, options: { log?: (message: string) => void } = {}): McpServer {
  const log = options.log ?? stderrLog;
  const server = new McpServer({ name: "cairn", version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  // The audit trail names the MCP client (its `clientInfo.name`) as the actor of every change made through
  // this server; per call, because an HTTP server serves several clients on one knowledge base.
  const actor = () => clientActor(server.server.getClientVersion()?.name, log);
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations },
      (args: unknown) => toolResult(() => kb.actingAs(actor(), () => tool.run(kb, args)), log),
    );
  }
  return server;
}

/**
 * The actor of a change made for the client named `name`: `mcp:NAME`, with the name held to the rule of every actor
 * name (text/actor-name.ts: one printable line, at most 256 characters in all). The name is the client's own claim: a
 * 3 MB one with line breaks and escapes went, whole, into every ledger event it caused. An altered name is logged once (by what it became: the
 * set must not keep the long original).
 */
const altered = new Set<string>();
export function clientActor(name: unknown, log: (message: string) => void): string {
  if (typeof name !== "string") return "mcp:unknown client";
  const shown = toActorName(name, MAX_ACTOR_LENGTH - "mcp:".length) ?? "unknown client";
  if (shown !== name && !altered.has(shown)) {
    if (altered.size < 1000) altered.add(shown);
    log(`cairn mcp: the client's name (${name.length} characters) is not one printable line of at most ${MAX_ACTOR_LENGTH - 4} characters; its changes are recorded as by "mcp:${shown}"`);
  }
  return `mcp:${shown}`;
}

/**
 * Serve MCP on stdio until the client disconnects (stdin ends). Resolves with the exit code;
 * requests received before stdin ended are answered first, so no ledger write is cut short.
 */
export async function serveStdio(kb: KnowledgeBase, options: ServeOptions = {}): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? stderrLog;
  const server = createServer(kb, { log });
  // stdout is the transport: a stray console.log from a dependency would corrupt the protocol.
  const restoreConsole = options.stdout ? () => {} : consoleToStderr();
  // A client that goes away mid-reply leaves a broken pipe; that ends the session, not the process.
  const onWriteError = (error: Error) => log(`cairn mcp: cannot write to the client: ${error.message}`);
  stdout.on("error", onWriteError);
  server.server.onerror = (error) => log(`cairn mcp: ${error.message}`);

  const disconnected = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    server.server.onclose = () => resolve();
  });
  try {
    const transport = new StdioServerTransport(stdin, stdout);
    await server.connect(transport);
    const requests = trackRequests(transport);
    // A long-lived server keeps its index fresh with a watcher instead of re-checking every file per call.
    const watching = startWatcher(kb, log);
    await disconnected;
    await requests.idle();
    await (await watching)?.close().catch((error: Error) => log(`cairn mcp: closing the watcher: ${error.message}`));
    await server.close();
  } finally {
    stdout.off("error", onWriteError);
    restoreConsole();
  }
  return 0;
}

/** Keep `kb`'s index current while serving; undefined (with a log line) when another process holds the index lock. */
export async function startWatcher(kb: KnowledgeBase, log: (message: string) => void): Promise<{ close(): Promise<void> } | undefined> {
  try {
    const handle = await kb.watch({ onEvent: (event) => event.type === "error" && log(`cairn mcp: watcher: ${event.message}`) });
    await handle.ready;
    return handle;
  } catch (error) {
    // Usually another `cairn watch` holds the index lock and keeps it fresh; searches then re-check the files.
    log(`cairn mcp: not watching the knowledge dir (${(error as Error).message})`);
    return undefined;
  }
}

/** Run a tool and shape its outcome: JSON text + structuredContent, or `isError` with the message. Never throws. */
async function toolResult(run: () => Promise<Record<string, unknown>>, log: (message: string) => void): Promise<CallToolResult> {
  try {
    // What hides text never reaches the client's model: an entry's text, a diff, a title (the prompt drops it too).
    const value = visibleOnly(await run());
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    if (isCairnError(error)) {
      return { content: [{ type: "text", text: error.message }], structuredContent: { error: { code: error.code, message: error.message } }, isError: true };
    }
    const message = error instanceof Error ? error.message : String(error);
    log(`cairn mcp: unexpected error: ${error instanceof Error ? (error.stack ?? message) : message}`);
    return { content: [{ type: "text", text: `unexpected error: ${message}` }], structuredContent: { error: { code: "INTERNAL", message } }, isError: true };
  }
}

const HIDDEN = new RegExp(`[${HIDDEN_CHARS}]`, "gu");

/** `value` with every string's hiding characters (src/text/invisible.ts) dropped, keys included. */
function visibleOnly<T>(value: T): T {
  if (typeof value === "string") return value.replace(HIDDEN, "") as T;
  if (Array.isArray(value)) return value.map(visibleOnly) as T;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(HIDDEN, ""), visibleOnly(v)])) as T;
}

export function stderrLog(message: string): void {
  process.stderr.write(message.endsWith("\n") ? message : `${message}\n`);
}

/** Point console.log/info/debug at stderr; returns the undo. */
export function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}
