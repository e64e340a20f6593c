/**
 * Secrets with a recognisable shape. First secretlint's maintained preset (secretlint.ts), then
 * cairn's own rules for what it does not cover: provider tokens with fixed prefixes (here and in
 * providers.ts), PEM and PuTTY private keys, JWTs, Azure keys and signatures, literal
 * `Authorization` credentials, passwords on command lines, and generic assignments. Each finding
 * masks its span so that later rules (generic assignments, hosts, paths) do not report it again.
 * Documentation samples (`…EXAMPLE`, runs of `x` or `0`) are skipped — see placeholder.ts.
 */
import { type Finding, maskSpans, redacted } from "./finding.js";
import { isFiller, isPlaceholder } from "./placeholder.js";
import { PROVIDER_SPECS } from "./providers.js";
import type { SanitizeRuleId } from "./rules.js";
import { detectAssignments } from "./assignments.js";
import { detectWithSecretlint } from "./secretlint.js";

export const WHY_SECRET = "entries are committed to git and injected into agent prompts, so a real credential would leak";
export const INSTEAD_SECRET = "replace it with a placeholder such as <token> or describe the pattern generally";

export type TokenSpec = {
  rule: SanitizeRuleId;
  /** Global regular expression; the first defined group, when present, is the secret material to test for filler. */
  pattern: RegExp;
  /** Human name of what was found. */
  what: string;
  /** Number of leading characters that are a public, non-secret prefix (shown in the message). */
  prefixLength: (match: string) => number;
  /** Extra check on the match (return false to skip it). */
  accept?: (match: RegExpExecArray) => boolean;
  /** Text just before the match that belongs to it (the pattern starts at a literal for speed). */
  lead?: RegExp;
};

const hasDigitAndLetter = (value: string): boolean => /\d/.test(value) && /[A-Za-z]/.test(value);

const TOKEN_SPECS: readonly TokenSpec[] = [
  {
    rule: "secret-slack-webhook",
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9_/-]{8,})/g,
    what: "a Slack webhook URL",
    prefixLength: (m) => m.indexOf(".com/") + 5,
  },
  {
    rule: "secret-azure-sas",
    pattern: /sig=(?<=(?:^|[?&;\s"'])sig=)([A-Za-z0-9%+/]{16,}={0,2})/gi,
    what: "an Azure shared access signature",
    prefixLength: () => 4,
  },
  {
    rule: "secret-jwt",
    pattern: /(?<![\w-])eyJ[\w-]{10,}\.(?:eyJ[\w-]{10,}\.[\w-]*|[\w-]{10,}\.[\w-]{10,})(?![\w-])/g,
    what: "a JSON Web Token",
    prefixLength: () => 3,
    accept: (m) => !isFiller(m[0].slice(3)),
  },
  {
    rule: "secret-aws-access-key",
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)([A-Z0-9]{16})(?![A-Za-z0-9])/g,
    what: "an AWS access key id",
    prefixLength: () => 4,
  },
  {
    rule: "secret-gcp-api-key",
    pattern: /(?<![\w-])AIza([\w-]{35})(?![\w-])/g,
    what: "a Google Cloud API key",
    prefixLength: () => 4,
  },
  {
    rule: "secret-github-token",
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_([A-Za-z0-9]{30,255})|github_pat_([A-Za-z0-9_]{30,255}))(?![A-Za-z0-9_])/g,
    what: "a GitHub token",
    prefixLength: (m) => (m.startsWith("github_pat_") ? 11 : 4),
  },
  {
    rule: "secret-gitlab-token",
    pattern: /(?<![\w-])gl(?:pat|ptt|dt|rt|cbt|soat|ft|imt)-([\w-]{20,})(?![\w-])/g,
    what: "a GitLab token",
    prefixLength: (m) => m.indexOf("-") + 1,
  },
  {
    rule: "secret-slack-token",
    pattern: /(?<![\w-])(?:xox[abposre]-|xapp-\d-)([A-Za-z0-9-]{10,})/g,
    what: "a Slack token",
    prefixLength: (m) => m.indexOf("-") + 1,
  },
  {
    rule: "secret-stripe-key",
    pattern: /(?<![\w])(?:(?:sk|rk|pk)_(?:live|test)_([A-Za-z0-9]{10,})|whsec_([A-Za-z0-9]{20,}))(?![\w])/g,
    what: "a Stripe key",
    prefixLength: (m) => (m.startsWith("whsec_") ? 6 : 8),
  },
  {
    rule: "secret-azure-key",
    pattern: /Key\s*=\s*(?<=(?<!\w)(?:Account|SharedAccess)Key\s*=\s*)([A-Za-z0-9+/]{20,}={0,2})/gi,
    lead: /(?:Account|SharedAccess)$/i,
    what: "an Azure storage or service key",
    prefixLength: (m) => m.indexOf("=") + 1,
  },
  {
    rule: "secret-auth-header",
    pattern: /(?<![\w])(?:[Bb]earer|Basic)[ \t]+([A-Za-z0-9._~+/-]{16,}={0,2})(?![\w.~+/-])/g,
    what: "a literal Authorization credential",
    prefixLength: (m) => m.search(/[ \t]/) + 1,
    accept: (m) => hasDigitAndLetter(m[1] ?? ""),
  },
];

const PEM_HEADER = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_BODY = /^(?:\s|\\[nr]|[A-Za-z-]+:[^\n\\]*)*[A-Za-z0-9+/]{16}/;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;

/** PEM private key blocks: the header must be followed by key material (a bare header in prose is fine). */
function detectPrivateKeys(text: string): Finding[] {
  if (!text.includes("PRIVATE KEY")) return [];
  const found: Finding[] = [];
  PEM_HEADER.lastIndex = 0;
  for (let m = PEM_HEADER.exec(text); m; m = PEM_HEADER.exec(text)) {
    const headerEnd = m.index + m[0].length;
    const body = PEM_BODY.exec(text.slice(headerEnd, headerEnd + 400));
    if (!body) continue;
    PEM_END.lastIndex = headerEnd;
    const end = PEM_END.exec(text);
    const spanEnd = end ? end.index + end[0].length : headerEnd + body[0].length;
    found.push({
      start: m.index,
      end: spanEnd,
      rule: "secret-private-key",
      message: `Found a PEM private key block (${m[0]} followed by key material): ${WHY_SECRET}. Expected: remove the key; ${INSTEAD_SECRET} (e.g. "a private key committed next to the code").`,
    });
    PEM_HEADER.lastIndex = spanEnd;
  }
  return found;
}

const PUTTY = /PuTTY-User-Key-File-\d: *[\w-]{1,40}/g;
const PUTTY_PRIVATE = /Private-Lines: *\d{1,3}\r?\n[A-Za-z0-9+/=]{16}/;

/** PuTTY `.ppk` key files: the header, then (within the file's usual length) `Private-Lines:` and key material. */
function detectPutty(text: string): Finding[] {
  if (!text.includes("PuTTY-User-Key-File-")) return [];
  const found: Finding[] = [];
  PUTTY.lastIndex = 0;
  for (let m = PUTTY.exec(text); m; m = PUTTY.exec(text)) {
    const window = text.slice(m.index, m.index + 4096);
    const priv = PUTTY_PRIVATE.exec(window);
    if (!priv) continue;
    const end = m.index + priv.index + priv[0].length;
    found.push({ start: m.index, end, rule: "secret-putty-key", message: `Found a PuTTY private key file (PuTTY-User-Key-File-… with Private-Lines): ${WHY_SECRET}. Expected: remove the key; ${INSTEAD_SECRET} (e.g. "a private key committed next to the code").` });
    PUTTY.lastIndex = end;
  }
  return found;
}

/** Passwords given on a command line: `mysql -u root -pS3cret`, `sshpass -p 'x'`, `redis-cli -a x` (the command, then the flag within the line). */
const CLI_PASSWORD = /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,160}? -p(?![\s-])((?:'[^'\n]{1,128}'|"[^"\n]{1,128}"|[^\s'"]{1,128}))|\bsshpass\b[^\n]{0,40}? -p ?((?:'[^'\n]{1,128}'|"[^"\n]{1,128}"|[^\s'"-][^\s'"]{0,127}))|\bredis-cli\b[^\n]{0,160}? -a ((?:'[^'\n]{1,128}'|"[^"\n]{1,128}"|[^\s'"-][^\s'"]{0,127}))/g;

function detectCliPasswords(text: string): Finding[] {
  if (!/mysql|mariadb|sshpass|redis-cli/.test(text)) return [];
  const found: Finding[] = [];
  CLI_PASSWORD.lastIndex = 0;
  for (let m = CLI_PASSWORD.exec(text); m; m = CLI_PASSWORD.exec(text)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? "";
    const value = raw.replace(/^['"]|['"]$/g, "");
    if (value.length < 4 || isPlaceholder(value, /^['"]/.test(raw)) || /^\$/.test(value)) continue;
    const start = m.index + m[0].length - raw.length;
    found.push({
      start,
      end: m.index + m[0].length,
      rule: "secret-cli-password",
      message: `Found a password on a command line (${m[0].split(/\s/)[0]} … value redacted): ${WHY_SECRET}. Expected: ${INSTEAD_SECRET}, e.g. \`mysql -p\` (prompts) or an option file / environment variable.`,
    });
  }
  return found;
}

function detectTokens(text: string, spec: TokenSpec): Finding[] {
  const found: Finding[] = [];
  spec.pattern.lastIndex = 0;
  for (let m = spec.pattern.exec(text); m; m = spec.pattern.exec(text)) {
    const material = m.slice(1).find((group) => group !== undefined) ?? m[0];
    if (isFiller(material) || (spec.accept && !spec.accept(m))) continue;
    const start = m.index - (spec.lead?.exec(text.slice(Math.max(0, m.index - 16), m.index))?.[0].length ?? 0);
    const whole = text.slice(start, m.index + m[0].length);
    const prefix = whole.slice(0, spec.prefixLength(whole));
    found.push({
      start,
      end: m.index + m[0].length,
      rule: spec.rule,
      message: `Found ${spec.what} (${redacted(prefix)}): ${WHY_SECRET}. Expected: ${INSTEAD_SECRET} (e.g. "${spec.what} was hard-coded in the config").`,
    });
  }
  return found;
}

/**
 * All secret findings in order of specificity, and the text with their spans masked
 * (the masked text is what the network and path rules scan next).
 */
export function detectSecrets(text: string): { findings: Finding[]; masked: string } {
  const findings: Finding[] = [];
  let masked = text;
  const take = (found: Finding[]): void => {
    if (found.length === 0) return;
    findings.push(...found);
    masked = maskSpans(masked, found);
  };
  take(detectWithSecretlint(masked));
  take(detectPrivateKeys(masked));
  take(detectPutty(masked));
  for (const spec of TOKEN_SPECS) take(detectTokens(masked, spec));
  for (const spec of PROVIDER_SPECS) take(detectTokens(masked, spec));
  take(detectCliPasswords(masked));
  take(detectAssignments(masked));
  return { findings, masked };
}
