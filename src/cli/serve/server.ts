/**
 * The watcher half of forwarding: `cairn watch` answers other cairn commands of its root over a Unix socket in
 * .cairn/, with its index, ledger and lint results already in memory. Each command re-checks every entry file
 * first (the stat pass a new process makes), runs as it would in its own process (same argument parsing, same
 * code), one at a time, and its output and exit code go back to the client. Anything that would make the
 * answer differ from the client's own — another build, environment, root or configuration — is declined, and
 * the client runs the command itself.
 */
import { chmodSync, lstatSync, readFileSync, unlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { CONFIG_FILE, loadConfig } from "../../config.js";
import { detectActor } from "../../lifecycle/actor.js";
import { collectGarbage, COLLECT_FROM_ENTRIES } from "../../store/gc.js";
import { EXIT, reportError, type Io } from "../output.js";
import { buildProgram, type Runner } from "../program.js";
import { refreshProgress } from "../progress.js";
import { buildId, isActorName, MAX_SOCKET_PATH, PROTOCOL, readLines, sameEnv, send, sharedEnv, socketPath, type Request } from "./protocol.js";

export type CommandServer = {
  /** The socket's absolute path. */
  path: string;
  /** Stop accepting commands, let the running one finish, remove the socket. */
  close(): Promise<void>;
};

export type ServeOptions = {
  /** One line per command run for another process. */
  log: (line: string) => void;
  /** A declined command, and why serving could not start. */
  warn: (line: string) => void;
  /** The watcher's WatchHandle.freshAsOf: wait until its index reflects every file as of a time (else every command re-checks every file itself). */
  freshAsOf?: (since: bigint) => Promise<boolean>;
  /** How many entries the watcher's index holds (garbage is collected after each command from COLLECT_FROM_ENTRIES). */
  entries?: () => number;
};

/** A request line carries the command line, the environment and the client's stdin when it has one (a findings file). */
const MAX_REQUEST_CHARS = 256 * 1024 * 1024;

/** Serve forwarded commands for `kb` (whose index the caller's watcher keeps current); undefined when this platform, build or .cairn/ cannot. */
export async function serveCommands(kb: KnowledgeBase, options: ServeOptions): Promise<CommandServer | undefined> {
  const { log, warn } = options;
  const build = buildId();
  if (process.platform === "win32" || build === undefined) return undefined;
  const root = kb.layout.root;
  const file = socketPath(root);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return void warn(`not serving other commands: the socket path ${file} is longer than a Unix socket path may be`);
  const refusal = clearSocketPlace(file);
  if (refusal) return void warn(`not serving other commands: ${refusal}`);
  const configText = readConfigText(root);
  // The configuration this process opened with must be the file's now, or its answers would follow an old one.
  const config = await loadConfig(root).catch((error: Error) => error);
  if (config instanceof Error || JSON.stringify(config) !== JSON.stringify(kb.config)) return void warn(`not serving other commands: ${CONFIG_FILE} changed while the index was built; restart cairn watch`);
  const env = sharedEnv();

  let queue: Promise<void> = Promise.resolve();
  /** close() was called: no command is taken on any more (a client told so runs it itself). */
  let stopping = false;
  /** Open connections, and whether the command of each is this process's to run (its client sent go). */
  const connections = new Map<net.Socket, { committed: boolean }>();
  const server = net.createServer((socket) => {
    const state = { committed: false };
    connections.set(socket, state);
    socket.on("error", () => undefined); // a client that went away: a command it committed to still finishes
    socket.on("close", () => connections.delete(socket));
    let request: Request | undefined;
    readLines(socket, MAX_REQUEST_CHARS, (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return socket.destroy();
      }
      if (request === undefined) {
        const why = stopping ? "cairn watch is stopping" : mismatch(message, { build, root, env, configAtStart: configText, configNow: () => readConfigText(root) });
        if (why) {
          warn(`declined a command: ${why}`);
          return void (send(socket, { decline: why }), socket.end());
        }
        request = message as Request;
        return send(socket, { hello: process.pid });
      }
      if ((message as { go?: unknown }).go !== true || state.committed) return;
      if (stopping) return void (send(socket, { decline: "cairn watch is stopping" }), socket.end());
      // The client no longer runs the command itself (it gave up waiting for hello, or never got it, before
      // sending go): from here on the command is this process's to run, and only here.
      state.committed = true;
      const served = request;
      queue = queue.then(() => runForwarded(kb, served, socket, options));
    });
  });
  // Only this user may connect (a socket's permission to connect is its write bit): created 0600, not chmod-ed
  // after a window in which it was not. The bind happens within listen(), synchronously.
  const umask = process.umask(0o177);
  const listening = new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(file, () => (server.off("error", reject), resolve()));
  });
  process.umask(umask); // right after the bind: nothing else this process creates gets the narrow mask
  await listening;
  chmodSync(file, 0o600);
  return {
    path: file,
    async close() {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Clients that did not commit run their command themselves; the commands already taken on finish.
      for (const [socket, state] of connections) if (!state.committed) send(socket, { decline: "cairn watch is stopping" }), socket.end();
      await queue;
      for (const socket of connections.keys()) socket.destroy();
      await closed;
      if (lstatSync(file, { throwIfNoEntry: false })?.isSocket()) unlinkSync(file);
    },
  };
}

/** Why a request must be declined, or undefined. */
function mismatch(message: unknown, own: { build: string; root: string; env: Record<string, string>; configAtStart: string | undefined; configNow: () => string | undefined }): string | undefined {
  const r = message as Partial<Request> | null;
  if (!r || typeof r !== "object" || r.v !== PROTOCOL) return "another version of the forwarding protocol";
  if (!Array.isArray(r.argv) || !r.argv.every((a) => typeof a === "string") || typeof r.cwd !== "string" || !path.isAbsolute(r.cwd) || typeof r.root !== "string" || typeof r.since !== "string" || !/^\d{1,30}$/.test(r.since)) return "a malformed request";
  if (r.build !== own.build) return `another build of cairn (the watcher runs ${own.build}, the command ${String(r.build)}): restart cairn watch after upgrading`;
  // The same spelling, not only the same directory: paths in the output are built from it.
  if (path.resolve(r.root) !== own.root) return `another root (${r.root})`;
  if ((r.stdin !== undefined && typeof r.stdin !== "string") || (r.actor !== undefined && !isActorName(r.actor))) return "a malformed request";
  if (!r.env || typeof r.env !== "object" || !sameEnv(r.env, own.env)) return "another environment (CAIRN_*, GIT_*, HOME, PATH, TZ or USER differ from the watcher's)";
  if (own.configNow() !== own.configAtStart) return `${CONFIG_FILE} changed since cairn watch started: restart it to serve commands again`;
  return undefined;
}

/** Run one forwarded command as the CLI would, its output and exit code going to the client. */
async function runForwarded(kb: KnowledgeBase, request: Request, socket: net.Socket, { log, warn, freshAsOf, entries }: ServeOptions): Promise<void> {
  if (socket.destroyed) return; // the client went away while the command waited its turn
  const began = Date.now();
  const io: Io = {
    out: (text) => send(socket, { out: text }),
    err: (text) => send(socket, { err: text }),
    rawErr: (text) => send(socket, { raw: text }),
    tty: request.tty === true,
    color: request.color === true,
    cwd: request.cwd,
    // The client read its stdin before connecting (a stalled pipe must not hold up every other command here).
    stdin: () => (typeof request.stdin === "string" ? Promise.resolve(request.stdin) : Promise.reject(new Error("the command's process sent no standard input"))),
  };
  // Who acts is read per command (the git configuration as it is now), not once per watcher: by the client of a
  // command that records events, as it started (forking git from this large process costs ~20 ms of its one thread);
  // else here, and only when an event is recorded (a read-only command forks nothing).
  const actor = request.actor ?? once(() => detectActor(kb.layout.root));
  // A command over a large knowledge base (status lints every entry) builds hundreds of MB on top of what the
  // watcher holds: collect its garbage when it is done, or the watcher's peak is the sum of several (100k entries:
  // 1.15 GB without, ~750 MB with). Not before it as well: the last command or refresh already collected, and a
  // second full collection cost each command at 100k ~0.3-0.6 s for no lower peak. After the client has its exit
  // code, not before: the collection (~0.25 s at 100k) then delays no answer, and the next command still waits for it.
  const large = (entries?.() ?? 0) >= COLLECT_FROM_ENTRIES;
  let exit: number = EXIT.ok;
  let started = false;
  let declined: string | undefined;
  const runner: Runner = async (program, action, options = {}) => {
    if (!options.forward) return void (declined = "this command is not one cairn watch runs for others");
    // commander also takes --root after the command name: it must name this root, spelled the same.
    const given = program.opts<{ root?: string }>().root;
    if (given !== undefined && path.resolve(request.cwd, given) !== kb.layout.root) return void (declined = `another root (--root ${given})`);
    started = true;
    const own = { onWarning: kb.onWarning, onProgress: kb.onProgress };
    kb.onWarning = (message) => io.err(`warning: ${message}`);
    kb.onProgress = refreshProgress(io);
    try {
      // What a new process would see: every entry file as it was when the client started. The watcher's own
      // refresh counts if it started after that (it re-checks every file); otherwise this command re-checks
      // every file itself (one stat each, changed files re-parsed), as a new process would.
      if (!(await freshAsOf?.(BigInt(request.since)))) kb.invalidate();
      exit = await kb.actingAs(actor, () => action(kb, io));
    } catch (error) {
      exit = reportError(io, error);
    } finally {
      kb.onWarning = own.onWarning;
      kb.onProgress = own.onProgress;
    }
  };
  try {
    await buildProgram(runner, { silent: true }).parseAsync(request.argv, { from: "user" });
  } catch (error) {
    // Help, or a usage error: the client prints it itself.
    if (!started) return void (send(socket, { decline: `the arguments did not parse here (${(error as Error).message})`, local: true }), socket.end());
  }
  const name = commandName(request.argv);
  if (!started) {
    warn(`declined cairn ${name}: ${declined ?? "no command ran"}`);
    send(socket, { decline: declined ?? "no command ran" });
  } else {
    log(`ran cairn ${name} for another process (${Date.now() - began} ms, exit ${exit})`);
    send(socket, { exit });
  }
  socket.end();
  if (started && large) collectGarbage();
}

/** `start`, called once: its promise kept for every later call. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= start());
}

/** The command's name: the first argument that is not a global option. */
function commandName(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--root") i++;
    else if (!argv[i]!.startsWith("-")) return argv[i]!;
  }
  return "(none)";
}

/** Prepare the socket's place: .cairn/ a real directory of this user; a socket left by a killed watcher removed. Why not, or undefined. */
function clearSocketPlace(file: string): string | undefined {
  const dir = lstatSync(path.dirname(file), { throwIfNoEntry: false });
  if (!dir?.isDirectory()) return ".cairn/ is not a directory (a symbolic link is never followed)";
  const uid = process.getuid?.();
  if (uid !== undefined && dir.uid !== uid) return ".cairn/ belongs to another user";
  const existing = lstatSync(file, { throwIfNoEntry: false });
  if (!existing) return undefined;
  if (!existing.isSocket()) return `${file} exists and is not a socket; remove it`;
  // Left by a watcher that was killed: this process holds the index writer lock, so no other watcher of this root runs.
  unlinkSync(file);
  return undefined;
}

function readConfigText(root: string): string | undefined {
  try {
    return readFileSync(path.join(root, CONFIG_FILE), "utf8");
  } catch {
    return undefined;
  }
}
