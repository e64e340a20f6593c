/**
 * URLs (`scheme://…`): embedded credentials, IP or disallowed hosts, absolute `file:` paths.
 * Scanning anchors on the literal `://` and walks back to the scheme (much cheaper than a
 * regex that must try every word as a possible scheme).
 */
import type { Finding } from "./finding.js";
import type { HostPolicy } from "./hosts.js";
import { isAllowedIPv4, isAllowedIPv6, parseIPv4, parseIPv6 } from "./ip.js";
import { absolutePathProblem } from "./paths.js";
import { isPlaceholder } from "./placeholder.js";

const URL_TAIL = /:\/\/([^\s"'`()|\\^]+)/g;
const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,20}$/;
/** Single-label hosts that are generic service names (`redis://redis:6379`, `http://db:5432`). */
const GENERIC_SINGLE_HOSTS = new Set([
  "localhost", "host", "hostname", "server", "domain", "db", "database", "redis", "postgres", "postgresql",
  "mysql", "mongo", "mongodb", "cache", "app", "api", "web", "service", "svc", "backend", "frontend", "proxy",
  "broker", "kafka", "rabbitmq", "queue", "worker", "bucket", "my-bucket", "registry", "minio", "elasticsearch",
]);

export const WHY_HOST = "entries are shared and injected into prompts, so they must not reveal infrastructure";

export function hostProblem(host: string, offset: number, how: string): Finding {
  return {
    start: offset,
    end: offset + host.length,
    rule: "host-not-allowed",
    message: `Found the host "${host}" ${how}: ${WHY_HOST}. Expected a generic placeholder such as api.example.com or <service-host>, or add the host to sanitize.allowHosts in cairn.config.json if it is public documentation.`,
  };
}

export function ipProblem(address: string, offset: number): Finding {
  return {
    start: offset,
    end: offset + address.length,
    rule: "ip-address",
    message: `Found the IP address ${address}: ${WHY_HOST}. Expected a documentation address (192.0.2.10, 2001:db8::1), 127.0.0.1, or a description such as "an internal service address".`,
  };
}

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

type Url = { start: number; end: number; scheme: string; rest: string; restStart: number };

/** Findings for one URL: embedded password, IP or disallowed host, absolute path in `file:` URLs. */
function checkUrl(url: Url, policy: HostPolicy): Finding[] {
  const scheme = url.scheme.toLowerCase();
  const rest = url.rest.replace(/[.,;:!?'"*_~>\]}]+$/, "");
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const found: Finding[] = [];
  const at = authority.lastIndexOf("@");
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(":");
    if (colon !== -1 && !isPlaceholder(decodeSafe(userinfo.slice(colon + 1)), false)) {
      found.push({
        start: url.restStart,
        end: url.restStart + at,
        rule: "url-credentials",
        message: `Found a ${scheme}:// URL with an embedded username and password (${scheme}://…:…@): entries are committed to git and injected into agent prompts, so the credential would leak. Expected a placeholder such as ${scheme}://<user>:<password>@<host>/ or a description of the pattern.`,
      });
    }
  }
  if (scheme === "file") {
    const problem = absolutePathProblem(authorityEnd === -1 ? "" : rest.slice(authorityEnd));
    if (problem) found.push({ start: url.start, end: url.end, rule: "absolute-path", message: problem });
  }
  const hostPort = authority.slice(at + 1);
  if (hostPort === "" || /[<{$%*]/.test(hostPort)) return found;
  const bracketed = hostPort.startsWith("[");
  const close = hostPort.indexOf("]");
  const host = bracketed ? hostPort.slice(1, close === -1 ? undefined : close) : hostPort.replace(/:\d*$/, "");
  const hostOffset = url.restStart + at + 1 + (bracketed ? 1 : 0);
  const v4 = parseIPv4(host);
  const v6 = v4 ? undefined : parseIPv6(host);
  if (v4 || v6) {
    const allowed = v4 ? isAllowedIPv4(v4) : isAllowedIPv6(v6 ?? [], host);
    if (!allowed && !policy.allows(host)) found.push(ipProblem(host, hostOffset));
    return found;
  }
  if (!/^[A-Za-z0-9.-]+$/.test(host) || policy.allows(host)) return found;
  if (!host.includes(".") && GENERIC_SINGLE_HOSTS.has(host.toLowerCase())) return found;
  found.push(hostProblem(host, hostOffset, `in a ${scheme}:// URL`));
  return found;
}

/** Every URL in `text` with its findings; `spans` covers the whole URLs (to mask them afterwards). */
export function detectUrls(text: string, policy: HostPolicy): { findings: Finding[]; spans: { start: number; end: number }[] } {
  const findings: Finding[] = [];
  const spans: { start: number; end: number }[] = [];
  if (!text.includes("://")) return { findings, spans };
  URL_TAIL.lastIndex = 0;
  for (let m = URL_TAIL.exec(text); m; m = URL_TAIL.exec(text)) {
    let start = m.index;
    while (start > 0 && m.index - start <= 21 && SCHEME_CHAR.test(text[start - 1] ?? "")) start--;
    const scheme = text.slice(start, m.index);
    if (!SCHEME.test(scheme) || text[start - 1] === "_" || SCHEME_CHAR.test(text[start - 1] ?? "")) continue;
    const url: Url = { start, end: m.index + m[0].length, scheme, rest: m[1] ?? "", restStart: m.index + 3 };
    findings.push(...checkUrl(url, policy));
    spans.push({ start: url.start, end: url.end });
  }
  return { findings, spans };
}
