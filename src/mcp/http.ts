/**
 * `cairn mcp --http PORT`: the MCP server over Streamable HTTP at `/mcp`, with `GET /health`.
 * Bound to 127.0.0.1 unless `--host` says otherwise; on a loopback address (any of 127.0.0.0/8, `::1` in any
 * spelling), requests whose Host header is not a loopback name, or whose Origin header is not a loopback origin, are
 * refused (DNS rebinding, a web page posting to the port). One MCP session per client, all on one KnowledgeBase, at
 * most `maxSessions` of them; SIGINT/SIGTERM finish the requests in flight, then stop.
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { CairnError } from "../errors.js";
import type { KnowledgeBase } from "../knowledge-base.js";
import { trackRequests, type RequestTracker } from "./drain.js";
import { isLoopbackAddress, isLoopbackHostHeader, isLoopbackOrigin } from "./loopback.js";
import { consoleToStderr, createServer, startWatcher, stderrLog, VERSION } from "./server.js";

export type HttpServeOptions = {
  /** TCP port; 0 picks a free one (the address is logged). */
  port: number;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Where logs go. Default: a line to `process.stderr`. */
  log?: (message: string) => void;
  /** Stops the server when aborted. Default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Called once listening, with the URL of the MCP endpoint. Default none. */
  onListening?: (url: string) => void;
  /** Close a session no request has used for this long (clients rarely end theirs). Default 30 minutes. */
  sessionIdleMs?: number;
  /**
   * Sessions kept open at once. A new one past it closes the least recently used session with no request in flight
   * (its client gets 404 and, as MCP clients do, initializes again); with none idle it is refused (503). Default 100.
   */
  maxSessions?: number;
};

/** Sessions kept open at once unless `maxSessions` says otherwise (each holds an MCP server: tens of KB). */
export const DEFAULT_MAX_SESSIONS = 100;
/** Request bodies are JSON-RPC messages; anything larger is refused. */
const MAX_BODY = 4 * 1024 * 1024;

type Session = { transport: StreamableHTTPServerTransport; requests: RequestTracker; close: () => Promise<void>; lastSeen: number };

/** Serve until the signal fires; resolves with the exit code. */
export async function serveHttp(kb: KnowledgeBase, options: HttpServeOptions): Promise<number> {
  const log = options.log ?? stderrLog;
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopbackAddress(host);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new CairnError("USAGE", `maxSessions must be a positive whole number, e.g. 100; got ${maxSessions}`);
  const sessions = new Map<string, Session>();
  /** Initializations under way: counted against maxSessions before their session is in `sessions`. */
  let opening = 0;
  let evicted = 0;
  let evictionNoted = 0;
  const restoreConsole = consoleToStderr();

  const openSession = async (): Promise<StreamableHTTPServerTransport> => {
    const server = createServer(kb, { log });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, requests, close: () => server.close(), lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    server.server.onerror = (error) => log(`cairn mcp: ${error.message}`);
    await server.connect(transport);
    const requests = trackRequests(transport);
    return transport;
  };

  /** Room for one more session: the least recently used idle ones closed while full; false when every one is busy. */
  const makeRoom = (): boolean => {
    while (sessions.size + opening >= maxSessions) {
      let oldest: [string, Session] | undefined;
      for (const entry of sessions) if (!entry[1].requests.pending && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
      if (!oldest) return false;
      sessions.delete(oldest[0]);
      oldest[1].close().catch(() => {});
      evicted++;
      // Said at most once a minute: a flood of initializations must not become a flood of log lines.
      if (Date.now() - evictionNoted >= 60_000) {
        log(`cairn mcp: ${maxSessions} sessions open (maxSessions): closed the least recently used idle one to open another (${evicted} so closed since the last note)`);
        evictionNoted = Date.now();
        evicted = 0;
      }
    }
    return true;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (loopback && !isLoopbackHostHeader(req.headers.host)) {
      return reply(res, 403, { error: `forbidden: Host "${req.headers.host ?? ""}" is not a loopback name; this server only answers requests addressed to localhost` });
    }
    const origin = req.headers.origin;
    if (loopback && origin !== undefined && !isLoopbackOrigin(origin)) {
      return reply(res, 403, { error: `forbidden: Origin "${origin}" is not a loopback origin; this server only answers pages served from localhost` });
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/health") {
      if (req.method !== "GET" && req.method !== "HEAD") return reply(res, 405, { error: "use GET /health" });
      return reply(res, 200, { status: "ok", name: "cairn", version: VERSION, sessions: sessions.size, maxSessions });
    }
    if (url.pathname !== "/mcp") return reply(res, 404, { error: `not found: ${url.pathname}; the MCP endpoint is /mcp and the health check /health` });

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(res, 404, -32001, `unknown or closed session ${sessionId}; initialize a new one`);
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return rpcError(res, 400, -32000, "no Mcp-Session-Id header: POST an initialize request first");
    const body = await readJson(req);
    if (body.kind === "error") return rpcError(res, body.status, -32700, body.message);
    if (!isInitializeRequest(body.value)) return rpcError(res, 400, -32000, "no Mcp-Session-Id header: the first request of a session must be initialize");
    if (!makeRoom()) {
      res.setHeader("retry-after", "5");
      return rpcError(res, 503, -32000, `too many sessions: all ${maxSessions} open sessions have requests in flight; try again shortly (the limit is maxSessions)`);
    }
    opening++;
    try {
      const transport = await openSession();
      await transport.handleRequest(req, res, body.value);
    } finally {
      opening--;
    }
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log(`cairn mcp: ${req.method} ${req.url}: ${error.message}`);
      if (!res.headersSent) rpcError(res, 500, -32603, `internal error: ${error.message}`);
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", (cause: NodeJS.ErrnoException) =>
      reject(new CairnError(cause.code === "EADDRINUSE" ? "USAGE" : "IO", `cannot listen on ${host}:${options.port}: ${cause.message}${cause.code === "EADDRINUSE" ? "; choose another port with --http PORT (0 picks a free one)" : ""}`, { cause })),
    );
    http.listen(options.port, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const endpoint = `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`;
  log(`cairn mcp: listening on ${endpoint} (health: ${endpoint.replace(/\/mcp$/, "/health")})`);
  if (!loopback) log(`cairn mcp: warning: bound to ${host} without authentication; anyone who can reach this port can read and change the knowledge base`);
  options.onListening?.(endpoint);

  const stop = stopSignal(options.signal);
  const watching = startWatcher(kb, log);
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sweep = setInterval(() => {
    for (const [id, session] of sessions) {
      if (Date.now() - session.lastSeen < idleMs || session.requests.pending) continue;
      sessions.delete(id);
      session.close().catch(() => {});
    }
  }, Math.min(idleMs / 2, 60_000)).unref();
  await stop.stopped;
  clearInterval(sweep);
  log("cairn mcp: stopping: finishing requests in flight");
  // Stop accepting connections, let the requests in flight finish, then close the sessions.
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  await Promise.all([...sessions.values()].map((s) => s.requests.idle()));
  await Promise.all([...sessions.values()].map((s) => s.close().catch(() => {})));
  http.closeAllConnections();
  await closed;
  await (await watching)?.close().catch((error: Error) => log(`cairn mcp: closing the watcher: ${error.message}`));
  restoreConsole();
  stop.release();
  return 0;
}

/**
 * Resolves when `signal` aborts, or on SIGINT/SIGTERM. The signal listeners stay attached until `release()`:
 * a dependency's signal-exit handler re-raises the signal (killing the process mid-shutdown) when it finds
 * itself the only listener, which is what a `once` listener would leave it.
 */
function stopSignal(signal: AbortSignal | undefined): { stopped: Promise<void>; release: () => void } {
  if (signal) {
    const stopped = signal.aborted ? Promise.resolve() : new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    return { stopped, release: () => {} };
  }
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return {
    stopped,
    release: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}

async function readJson(req: IncomingMessage): Promise<{ kind: "ok"; value: unknown } | { kind: "error"; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return { kind: "error", status: 413, message: `request body over ${MAX_BODY / 1024 / 1024} MB` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { kind: "ok", value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch (error) {
    return { kind: "error", status: 400, message: `parse error: the body is not JSON (${(error as Error).message})` };
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  reply(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}
