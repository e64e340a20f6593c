/**
 * Network identifiers: URLs (credentials, host; see urls.ts), e-mail addresses, IPv4/IPv6
 * addresses and bare hostnames. URLs are handled first and masked, so an address or path inside
 * a URL is reported once, for its host, and URL paths are never taken for file-system paths.
 * E-mails and hosts anchor their scans on the literal `@` / `.tld` and walk back, which keeps
 * the cost per entry low.
 */
import { type Finding, maskSpans } from "./finding.js";
import {
  type HostPolicy,
  AMBIGUOUS_TLDS,
  CODE_RECEIVERS,
  COMMON_TLDS,
  INTERNAL_TLDS,
  LANGUAGE_RECEIVERS,
  hostKind,
  isReservedExampleHost,
} from "./hosts.js";
import { isAllowedIPv4, isAllowedIPv6, parseIPv4, parseIPv6 } from "./ip.js";
import { detectUrls, hostProblem, ipProblem } from "./urls.js";

const EMAIL_DOMAIN = /@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})(?![\w-]|\.[A-Za-z0-9])/g;
const LOCAL_CHAR = /[\w.%+-]/;
const IPV4 = /(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d{1,2}))?(?![\w]|\.\d)/g;
const IPV6_HINT = /:[0-9A-Fa-f]{0,4}:/g;
const IPV6_CHAR = /[0-9A-Fa-f:.]/;
const DOT_TLD = /\.([a-z]{2,24})(?![\w-]|\.[A-Za-z0-9])/g;
const HOST_CHAR = /[A-Za-z0-9.-]/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const FILE_EXTENSION_TLDS = new Set(["js", "ts", "md", "py", "rb", "rs", "go", "sh", "cs", "cc", "hh", "pl", "pm", "so", "gz", "xz", "png", "jpg", "gif", "svg", "css", "json", "yml", "yaml", "txt", "html", "lock", "log", "tsx", "jsx", "vue"]);

/** First labels of reversed-DNS package names (`com.acme.app`, `io.grpc.netty`): code, not hosts. */
const COMMON_TLD_FIRST = new Set(["com", "org", "net", "io", "edu", "gov", "dev", "app", "co", "uk", "de"]);

function lineBefore(text: string, offset: number): string {
  // At most 200 characters back: a search for the line start must not scan a whole 1 MB line per match.
  const window = text.slice(Math.max(0, offset - 200), offset);
  return window.slice(window.lastIndexOf("\n") + 1);
}

function inInlineCode(before: string): boolean {
  let count = 0;
  for (let i = before.indexOf("`"); i !== -1; i = before.indexOf("`", i + 1)) count++;
  return count % 2 === 1;
}

/** Whether a dotted word is written as a hostname (see hosts.ts for the TLD tiers). */
function isBareHost(text: string, host: string, offset: number): boolean {
  const kind = hostKind(host);
  if (!kind) return false;
  const after = text.slice(offset + host.length, offset + host.length + 4);
  if (/^(?:\(|\s*=(?!=))/.test(after)) return false; // a call or an assignment target: code
  const labels = host.toLowerCase().split(".");
  const first = labels[0] ?? "";
  if (LANGUAGE_RECEIVERS.has(first)) return false;
  if (labels.length >= 3 && COMMON_TLD_FIRST.has(first)) return false;
  if (/[A-Z]/.test(host.slice(host.indexOf(".")))) return false; // Foo.Bar.local: code, not a host
  if (kind === "ambiguous" && /[A-Z]/.test(host)) return false; // Dockerfile.dev, Xcode.app
  if (kind === "ambiguous" && labels.length === 2) {
    if (CODE_RECEIVERS.has(first)) return false;
    const before = lineBefore(text, offset);
    if (inInlineCode(before) || /\b(?:import|from|require|package|using|include)\b/.test(before)) return false;
  }
  return true;
}

/** The e-mail addresses in `text`: the local part is found by walking back from each `@domain`. */
function detectEmails(text: string, policy: HostPolicy, findings: Finding[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  EMAIL_DOMAIN.lastIndex = 0;
  for (let m = EMAIL_DOMAIN.exec(text); m; m = EMAIL_DOMAIN.exec(text)) {
    let start = m.index;
    while (start > 0 && m.index - start <= 64 && LOCAL_CHAR.test(text[start - 1] ?? "")) start--;
    if (start === m.index || m.index - start > 64 || LOCAL_CHAR.test(text[start - 1] ?? "") || !/[A-Za-z0-9]/.test(text[start] ?? "")) continue;
    const domain = m[1] ?? "";
    if (FILE_EXTENSION_TLDS.has(domain.slice(domain.lastIndexOf(".") + 1).toLowerCase())) continue;
    const end = m.index + m[0].length;
    spans.push({ start, end });
    if (text.slice(start, m.index) === "git" && text[end] === ":") {
      if (!policy.allows(domain)) findings.push(hostProblem(domain, m.index + 1, "in a git remote"));
      continue;
    }
    if (isReservedExampleHost(domain)) continue;
    findings.push({
      start,
      end,
      rule: "email",
      message: `Found an e-mail address (…@${domain}): entries are shared and injected into prompts, so they must not contain personal or organisational contacts. Expected a placeholder such as user@example.com or a role ("the service owner").`,
    });
  }
  return spans;
}

/**
 * IPv6 addresses: each `:hex:` / `::` hint is grown to the surrounding run of hex digits,
 * colons and dots, which must stand alone (not `std::io`, not `a::b`) and parse as an address.
 */
function detectIPv6(text: string, policy: HostPolicy, findings: Finding[]): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  IPV6_HINT.lastIndex = 0;
  for (let m = IPV6_HINT.exec(text); m; m = IPV6_HINT.exec(text)) {
    let start = m.index;
    while (start > 0 && IPV6_CHAR.test(text[start - 1] ?? "")) start--;
    let end = m.index + m[0].length;
    while (end < text.length && IPV6_CHAR.test(text[end] ?? "")) end++;
    IPV6_HINT.lastIndex = end;
    while (end > start && text[end - 1] === ".") end--;
    if (/\w/.test(text[start - 1] ?? "") || /[\w:]/.test(text[end] ?? "")) continue;
    const address = text.slice(start, end);
    const groups = parseIPv6(address);
    if (!groups) continue;
    const cidr = /^\/(\d{1,3})(?!\w)/.exec(text.slice(end, end + 5));
    spans.push({ start, end: end + (cidr?.[0].length ?? 0) });
    if (!isAllowedIPv6(groups, address, cidr?.[1]) && !policy.allows(address)) findings.push(ipProblem(address, start));
  }
  return spans;
}

function detectIPv4(text: string, policy: HostPolicy, findings: Finding[]): void {
  if (!/\d\.\d/.test(text)) return;
  IPV4.lastIndex = 0;
  for (let m = IPV4.exec(text); m; m = IPV4.exec(text)) {
    const address = m[1] ?? "";
    const octets = parseIPv4(address);
    if (!octets || isAllowedIPv4(octets, m[2]) || policy.allows(address)) continue;
    const before = text.slice(Math.max(0, m.index - 12), m.index);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 2);
    if (/(?:version|ver\.?|release|==|>=|<=|[@^~])\s*$/i.test(before) || /^[-+][A-Za-z0-9]/.test(after)) continue;
    findings.push(ipProblem(address, m.index));
  }
}

/** Bare hostnames: each `.tld` with a known TLD, walked back to the start of the dotted word. */
function detectHosts(text: string, policy: HostPolicy, findings: Finding[]): void {
  DOT_TLD.lastIndex = 0;
  for (let m = DOT_TLD.exec(text); m; m = DOT_TLD.exec(text)) {
    const tld = m[1] ?? "";
    if (!INTERNAL_TLDS.has(tld) && !COMMON_TLDS.has(tld) && !AMBIGUOUS_TLDS.has(tld) && tld !== "arpa") continue;
    let start = m.index;
    while (start > 0 && m.index - start < 253 && HOST_CHAR.test(text[start - 1] ?? "")) start--;
    if (start === m.index || /[\w@/\\]/.test(text[start - 1] ?? "")) continue;
    const host = text.slice(start, m.index + m[0].length);
    if (!host.slice(0, -tld.length - 1).split(".").every((label) => LABEL.test(label))) continue;
    if (isBareHost(text, host, start) && !policy.allows(host)) findings.push(hostProblem(host, start, "in the text"));
  }
}

/**
 * All network findings in `text` (already masked for secrets) and the text with URLs,
 * e-mail addresses and IPv6 addresses masked, ready for the path rules.
 */
export function detectNetwork(text: string, policy: HostPolicy): { findings: Finding[]; masked: string } {
  const urls = detectUrls(text, policy);
  const findings = urls.findings;
  let masked = maskSpans(text, urls.spans);
  if (masked.includes("@")) masked = maskSpans(masked, detectEmails(masked, policy, findings));
  if (masked.includes(":")) masked = maskSpans(masked, detectIPv6(masked, policy, findings));
  detectIPv4(masked, policy, findings);
  detectHosts(masked, policy, findings);
  return { findings, masked };
}
