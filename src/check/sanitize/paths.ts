/**
 * File-system paths that do not belong in an entry: absolute paths and paths leaving the repo.
 *
 * Decisions:
 * - A leading `/` is only an absolute path under a well-known file-system root (`/home`,
 *   `/Users`, `/root`, `/etc`, `/var`, `/opt`, `/usr`, `/srv`, `/mnt`, `/tmp`, `/Volumes`,
 *   `/Library`, `/Applications`); anything else (`/api/v1/users`, `/healthz`, `/src/a.ts`) is
 *   read as an API route or a repo-rooted path and allowed. URL paths never reach this rule.
 * - Generic system paths are allowed: a bare root (`/etc`, `/tmp`), `/etc/passwd`,
 *   `/etc/hosts`, `/usr/bin/env`, `/usr/bin/…`, `/etc/ssl/…`, `/var/run/secrets/…`, `/dev/…`,
 *   `/proc/…`; so are templated paths (`/home/$USER/…`, `/home/<user>/…`, `/home/user/…`).
 * - `~/…` is allowed only for dot-files and dot-directories (`~/.ssh/config`, `~/.npmrc`),
 *   which are tool conventions; `~/work/acme-api` names a personal layout and is reported.
 * - Windows drive paths (`C:\Users\…`) and UNC shares (`\\server\share`) are reported,
 *   except `C:\Windows\…` and templated ones (`%USERPROFILE%\…`).
 * - `..` is resolved against the repository root (evidence anchors are repo-relative), or
 *   against the entry's folder for markdown link targets `](../x)`; a path is reported only
 *   when it climbs above the root AND names something there (`../other-repo/x`, `../../etc`),
 *   so `cd ../..` is fine. Relative imports quoted from code (`from "../lib/x"`) are skipped.
 */
import type { DetectContext, Finding } from "./finding.js";

const UNIX_ROOTS = "home|Users|root|etc|var|opt|usr|srv|mnt|tmp|Volumes|Library|Applications";
const PATH_CHARS = String.raw`[^\s"'\x60<>()\[\]{},;|*?]*`;
const UNIX = new RegExp(String.raw`(?<![\w.~/\\$%-])(?<!\b[A-Za-z]:)\/(?:${UNIX_ROOTS})(?=[/\s"'\x60),;:.]|$)${PATH_CHARS}`, "g");
const WINDOWS = new RegExp(String.raw`(?<![\w/\\.])[A-Za-z]:\\(?!\\)${PATH_CHARS}|(?<![\w/\\.:])[A-Za-z]:\/(?![\/])${PATH_CHARS}`, "g");
const UNC = /(?<![\w\\])\\\\[A-Za-z0-9][\w.-]*\\[\w$.-]+/g;
const TILDE = new RegExp(String.raw`(?<![\w~/\\.$-])~(?:[A-Za-z][\w-]*)?\/${PATH_CHARS}`, "g");
const DOTDOT = new RegExp(String.raw`(?<=^|[\s"'\x60(\[<=,:])(?:[^\s"'\x60()\[\]<>{},;|*?\\/]+[\\/])*\.\.[\\/][^\s"'\x60()\[\]<>{},;|*?]*`, "g");

const ALLOWED_EXACT = new Set([
  "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/hosts", "/etc/hostname", "/etc/resolv.conf", "/etc/sudoers",
  "/etc/os-release", "/etc/environment", "/etc/crontab", "/etc/fstab", "/etc/ssh/sshd_config", "/etc/ssl",
  "/var/log", "/var/tmp", "/var/run", "/var/lib", "/var/cache", "/var/www", "/var/run/docker.sock",
  "/usr/local", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/share", "/usr/include", "/Library/Keychains",
]);
const ALLOWED_PREFIXES = ["/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/lib/", "/usr/local/lib/", "/usr/share/", "/usr/include/", "/etc/ssl/", "/etc/pki/", "/etc/ca-certificates/", "/var/run/secrets/"];
const PLACEHOLDER_SEGMENT = /^(?:\$\{?\w+\}?|%\w+%|user|username|you|me|someone|name|<.*>|\.\.\.|…|\*)$/i;

function tidy(path: string): string {
  return path.replace(/:\d+(?:-\d+)?$/, "").replace(/[.,:!?]+$/, "");
}

function isGenericUnixPath(path: string): boolean {
  const p = path.replace(/\/+$/, "");
  const segments = p.split("/").filter(Boolean);
  if (segments.length <= 1 || ALLOWED_EXACT.has(p)) return true;
  if (ALLOWED_PREFIXES.some((prefix) => p.startsWith(prefix))) return true;
  if (segments.some((segment) => segment.includes("$") || /%\w+%/.test(segment))) return true;
  return (segments[0] === "home" || segments[0] === "Users") && PLACEHOLDER_SEGMENT.test(segments[1] ?? "");
}

const WHY_PATH = "absolute paths reveal machine, user and deployment details and do not resolve in anyone else's checkout";
const INSTEAD_PATH = "a repo-relative path (e.g. src/config.ts) or a placeholder such as <home>/.config/tool";

function describe(path: string): string {
  return path.length > 80 ? `${path.slice(0, 77)}…` : path;
}

/** Message when `path` (a Unix path, e.g. from a `file://` URL) is a reportable absolute path. */
export function absolutePathProblem(path: string): string | undefined {
  let decoded = path;
  try {
    decoded = decodeURI(path);
  } catch {
    // keep the path as written when it is not valid percent-encoding
  }
  const p = tidy(decoded);
  if (!new RegExp(`^/(?:${UNIX_ROOTS})(?:/|$)`).test(p) || isGenericUnixPath(p)) return undefined;
  return `Found the absolute path ${describe(p)}: ${WHY_PATH}. Expected ${INSTEAD_PATH}.`;
}

function absolute(start: number, path: string): Finding {
  return { start, end: start + path.length, rule: "absolute-path", message: `Found the absolute path ${describe(path)}: ${WHY_PATH}. Expected ${INSTEAD_PATH}.` };
}

function isGenericWindowsPath(path: string): boolean {
  const segments = path.split(/[\\/]/).filter(Boolean);
  if (segments.length <= 2) return true; // C:\ or C:\Users (a placeholder may follow)
  if (segments[1]?.toLowerCase() === "windows" || /[%$<]/.test(path)) return true;
  return segments[1]?.toLowerCase() === "users" && PLACEHOLDER_SEGMENT.test(segments[2] ?? "");
}

function lineBefore(text: string, offset: number): string {
  // At most 200 characters back: a search for the line start must not scan a whole 1 MB line per match.
  const window = text.slice(Math.max(0, offset - 200), offset);
  return window.slice(window.lastIndexOf("\n") + 1);
}

/** Depth of the folder holding `file` (`knowledge/a.md` → 1); labels such as `<finding>` → 0. */
function folderDepth(file: string): number {
  if (file.startsWith("<")) return 0;
  return file.split(/[\\/]/).filter((s) => s !== "" && s !== ".").length - 1;
}

/** True when the path climbs above its base and then names something out there. */
function leavesRepo(path: string, base: number): boolean {
  let depth = base;
  let escaped = false;
  for (const segment of path.split(/[\\/]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      depth--;
      if (depth < 0) escaped = true;
    } else {
      if (escaped) return true;
      depth++;
    }
  }
  return false;
}

const IMPORT_CONTEXT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|#\s*include\s*|\bextends\s+|@import\s+)["'\x60<]$/;

/** Absolute paths and paths leaving the repository in `text` (URLs and e-mails already masked). */
export function detectPaths(text: string, context: DetectContext): Finding[] {
  const found: Finding[] = [];
  if (text.includes("/")) {
    UNIX.lastIndex = 0;
    for (let m = UNIX.exec(text); m; m = UNIX.exec(text)) {
      const path = tidy(m[0]);
      if (!isGenericUnixPath(path)) found.push(absolute(m.index, path));
    }
    TILDE.lastIndex = 0;
    for (let m = TILDE.exec(text); m; m = TILDE.exec(text)) {
      const path = tidy(m[0]);
      const rest = path.slice(path.indexOf("/") + 1);
      if (rest === "" || rest.startsWith(".") || PLACEHOLDER_SEGMENT.test(rest.split("/")[0] ?? "")) continue;
      found.push(absolute(m.index, path));
    }
  }
  if (text.includes(":\\") || text.includes(":/")) {
    WINDOWS.lastIndex = 0;
    for (let m = WINDOWS.exec(text); m; m = WINDOWS.exec(text)) {
      const path = tidy(m[0]);
      if (!isGenericWindowsPath(path)) found.push(absolute(m.index, path));
    }
  }
  if (text.includes("\\\\")) {
    UNC.lastIndex = 0;
    for (let m = UNC.exec(text); m; m = UNC.exec(text)) found.push(absolute(m.index, m[0]));
  }
  if (text.includes("..")) {
    DOTDOT.lastIndex = 0;
    for (let m = DOTDOT.exec(text); m; m = DOTDOT.exec(text)) {
      const path = tidy(m[0]);
      const before = lineBefore(text, m.index);
      if (IMPORT_CONTEXT.test(before)) continue;
      const base = before.endsWith("](") ? folderDepth(context.file) : 0;
      if (!leavesRepo(path, base)) continue;
      found.push({
        start: m.index,
        end: m.index + path.length,
        rule: "path-outside-repo",
        message: `Found the path ${describe(path)}, which leaves the repository through "..": paths outside the project reveal the local layout and cannot be checked as evidence. Expected a repo-relative path inside the project (e.g. src/a.ts).`,
      });
    }
  }
  return found;
}
