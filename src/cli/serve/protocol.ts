/**
 * Commands forwarded to a running `cairn watch`: where the watcher listens, what both sides must share for the
 * watcher's answer to be the one this process would give, and the messages (one JSON object per line).
 *
 * Client → watcher: a Request line. Watcher → client: `{ decline }` (the client runs the command itself; `local`:
 * even under CAIRN_USE_WATCH=require, the arguments did not parse and the client prints the usage error) or
 * `{ hello }`. Client → watcher: `{ go: true }` — only now may the watcher run the command, and the client no
 * longer will: a client that gave up waiting for hello never sends go, so a command never runs twice.
 * Watcher → client: `{ out }`/`{ err }`/`{ raw }` output and `{ exit }` last; or a `{ decline }` before the
 * command ran (it is not one the watcher runs for others, or the watcher is stopping). A command that reads
 * stdin ('-') has it in the request: the client reads it first, so a stalled pipe holds up only that client.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";

export const PROTOCOL = 1;

/** The commands a running watcher runs for others: their inputs are arguments, files and stdin; none opens an editor or runs until stopped. */
export const FORWARDED_COMMANDS: ReadonlySet<string> = new Set(["status", "show", "search", "inject", "confirm", "retract", "restore", "record", "compound", "decay", "history", "set-status", "supersede"]);

/** The commands that record who acted on ledger events: their actor is looked up as the process starts (main.ts). */
export const ACTING_COMMANDS: ReadonlySet<string> = new Set(["inject", "confirm", "retract", "restore", "record", "compound", "decay", "set-status", "supersede"]);

/**
 * The forwarded command an argument list runs, and its --root, read without commander (the client decides before
 * loading the command line). Undefined for anything else, and for help: that is printed here.
 */
export function forwardedCommand(argv: readonly string[]): { name: string; root?: string } | undefined {
  let root: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--root" && i + 1 < argv.length) root = argv[++i];
    else if (arg.startsWith("--root=")) root = arg.slice("--root=".length);
    else if (arg.startsWith("-")) return undefined;
    else {
      // Help is printed here; a --root after the command name (commander takes it there too) is left to commander.
      if (!FORWARDED_COMMANDS.has(arg) || argv.slice(i + 1).some((a) => a === "--help" || a === "-h" || a === "--root" || a.startsWith("--root="))) return undefined;
      return { name: arg, ...(root !== undefined ? { root } : {}) };
    }
  }
  return undefined;
}

/** The environment variable that turns forwarding off (`0`) or makes it mandatory (`require`: an error when no watcher runs the command). */
export const USE_WATCH_ENV = "CAIRN_USE_WATCH";

export type Request = {
  v: typeof PROTOCOL;
  /** The client's build (buildId): the watcher runs only the same code. */
  build: string;
  /** The project root the client resolved (--root, else found from its working directory). */
  root: string;
  /** The command line after `cairn`, as typed. */
  argv: string[];
  /** Where relative file arguments resolve. */
  cwd: string;
  /** When the client process started, `process.hrtime.bigint()` in decimal (a clock every process of the machine shares): every file as it was then must be seen. */
  since: string;
  /** sharedEnv() of the client. */
  env: Record<string, string>;
  /** The client's stderr is a terminal (progress bars). */
  tty: boolean;
  /** The client's stdout is a terminal and NO_COLOR is unset. */
  color: boolean;
  /** The client's standard input, read before connecting, when an argument names it ('-'). */
  stdin?: string;
  /**
   * Who acts (detectActor in the client's process: a fork of a small process is cheap, the watcher's is not), for a
   * command of ACTING_COMMANDS. Absent: the watcher looks it up.
   */
  actor?: string;
};

/**
 * An actor name a request may carry: trimmed, not empty, one line without control characters, at most 256
 * characters (text/actor-name.ts, the rule the MCP server applies to its clients' names too). A client whose name
 * is anything else leaves it out, and the watcher looks it up itself.
 */
export { isActorName } from "../../text/actor-name.js";

/** Options whose value '-' means standard input. */
const STDIN_OPTIONS = ["--findings", "--summary-file", "--diff"];

/** The command line reads standard input: one of STDIN_OPTIONS is given '-'. */
export function readsStdin(argv: readonly string[]): boolean {
  return argv.some((arg, i) => STDIN_OPTIONS.some((o) => arg === `${o}=-` || (arg === o && argv[i + 1] === "-")));
}

export type WatcherMessage =
  | { decline: string; local?: true }
  | { hello: number }
  | { out: string }
  | { err: string }
  | { raw: string }
  | { exit: number };

export type ClientMessage = { go: true };

/** The watcher's socket: in the root's .cairn/, never committed (a hostile change cannot plant one: git stores no sockets). */
export function socketPath(root: string): string {
  return path.join(root, ".cairn", "watch.sock");
}

/** A Unix socket's path must fit sockaddr_un: 104 bytes on macOS, 108 on Linux, the terminating NUL included. */
export const MAX_SOCKET_PATH = 103;

/** The build of this cairn, written beside the bundle by scripts/bundle.mjs; undefined when not running from the bundle (then nothing is forwarded). */
export function buildId(): string | undefined {
  try {
    return readFileSync(new URL("./build-id", import.meta.url), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Variables that change what a command does or records (the actor, git's configuration, dates, sort order, which git runs): a client whose values differ runs the command itself. */
const SHARED = new Set(["HOME", "PATH", "TZ", "USER", "LOGNAME", "XDG_CONFIG_HOME", "LANG", "LANGUAGE"]);

export function sharedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const shared: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    if (name === USE_WATCH_ENV) continue;
    // LC_*: the default collation sorts lists (status, suggestions).
    if (SHARED.has(name) || name.startsWith("CAIRN_") || name.startsWith("GIT_") || name.startsWith("LC_")) shared[name] = env[name] ?? "";
  }
  return shared;
}

export function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/** Call `onLine` with each complete line the socket sends; a line longer than `maxChars` destroys the socket. */
export function readLines(socket: Socket, maxChars: number, onLine: (line: string) => void): void {
  const decoder = new StringDecoder("utf8");
  // A line's parts so far: a long line (a findings file on stdin) is joined once, not re-scanned per chunk.
  let parts: string[] = [];
  let size = 0;
  socket.on("data", (chunk: Buffer) => {
    let text = decoder.write(chunk);
    let newline: number;
    while ((newline = text.indexOf("\n")) >= 0) {
      parts.push(text.slice(0, newline));
      const line = parts.join("");
      parts = [];
      size = 0;
      text = text.slice(newline + 1);
      if (line) onLine(line);
      if (socket.destroyed) return;
    }
    if (text) parts.push(text), (size += text.length);
    if (size > maxChars) socket.destroy(new Error(`a message longer than ${maxChars} characters`));
  });
}

export function send(socket: Socket, message: WatcherMessage | ClientMessage | Request): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}
