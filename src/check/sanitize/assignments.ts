/**
 * Literal values assigned to secret-looking names: `password=…`, `api_key: "…"`, `"token": "…"`,
 * `DB_PASSWORD := …`, `secret => …`, `--password …`.
 *
 * The name must END in a sensitive word (password, passwd, passphrase, pwd, pass, secret, token,
 * api key, access key, private key, auth key, client secret, secret/encryption/signing/master/session
 * key, optionally followed by `_base` as in SECRET_KEY_BASE), so `tokenizer`, `max_tokens`,
 * `secretName` and `password_hash` are not names of secrets; `credentials` is left out because
 * `credentials: "include"` is an ordinary fetch option; a bare `pwd` is the shell's directory. A quoted value is
 * reported unless it is a placeholder or contains spaces (prose); an unquoted value must also
 * look like a secret (letters mixed with digits or symbols), because bare words after a colon
 * are ordinary prose ("Token: rotate it daily") or code (`token = await …`).
 */
import type { Finding } from "./finding.js";
import { isPlaceholder, looksSecret } from "./placeholder.js";
import type { SanitizeRuleId } from "./rules.js";

/** The sensitive word that ends a name, then the assignment operator; the name's start is found by walking back. */
const SENSITIVE =
  "(?:password|passwd|passphrase|pwd|pass|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key(?:[_-]?id)?|auth[_-]?key|client[_-]?secret|(?:secret|encryption|signing|master|session|jwt|hmac|app)[_-]?key)(?:[_-]?base)?";
const ASSIGNMENT = new RegExp(`(${SENSITIVE})(["'\`]?)[ \\t]{0,16}(:=|=>|=|:)[ \\t]{0,16}`, "gi");
const NAME_CHAR = /[\w.-]/;
const FLAG = /(?<![\w-])--([A-Za-z][\w-]{0,63})[ \t]{1,16}(?=[^\s-])/g;
const SENSITIVE_NAME = new RegExp(`${SENSITIVE}$`, "i");
/** Values are read at most this far: a secret is short, and reading to the end of a long run per match would be quadratic. */
const MAX_VALUE = 512;
const MAX_NAME = 64;
const UNQUOTED_VALUE = new RegExp(`[^\\s"'\`,;)}]{1,${MAX_VALUE}}`, "y");

type Value = { text: string; quoted: boolean; start: number };

function readValue(text: string, at: number): Value | undefined {
  const quote = text[at];
  if (quote === '"' || quote === "'" || quote === "`") {
    let i = at + 1;
    const stop = Math.min(text.length, at + 1 + MAX_VALUE);
    while (i < stop) {
      const c = text[i];
      if (c === "\\") i += 2;
      else if (c === quote) return { text: text.slice(at + 1, i), quoted: true, start: at + 1 };
      else if (c === "\n" || c === "\r") break;
      else i++;
    }
    return undefined;
  }
  UNQUOTED_VALUE.lastIndex = at;
  const m = UNQUOTED_VALUE.exec(text);
  if (!m) return undefined;
  return { text: m[0].replace(/[.,:!?]+$/, ""), quoted: false, start: at };
}

/**
 * Quoted values count unless they are placeholders or prose (contain spaces). Unquoted values
 * must look like secrets, except in `.env` style lines (`SESSION_SECRET=keyboardcat`: an
 * upper-case name, `=` without spaces, 8+ characters), which are configuration, not prose or code.
 */
function isSecretValue(value: Value, envStyle: boolean): boolean {
  const v = value.text;
  if (isPlaceholder(v, value.quoted)) return false;
  if (value.quoted) return v.length >= 5 && !/\s/.test(v);
  return looksSecret(v) || (envStyle && v.length >= 8 && /^[\w+/=.~!@#%^&*-]+$/.test(v));
}

function ruleFor(name: string, value: Value): SanitizeRuleId {
  const lower = name.toLowerCase();
  if (/aws/.test(lower) && /secret/.test(lower) && /^[A-Za-z0-9/+]{40}$/.test(value.text)) return "secret-aws-secret-key";
  if ((lower === "private_key" || lower === "private_key_id") && value.quoted) return "secret-gcp-service-account";
  return "secret-assignment";
}

function finding(name: string, value: Value, start: number): Finding {
  const rule = ruleFor(name, value);
  const placeholder = `<${name.replace(/^-+/, "").toLowerCase()}>`;
  const what =
    rule === "secret-aws-secret-key"
      ? "an AWS secret access key"
      : rule === "secret-gcp-service-account"
        ? "a Google service-account key field"
        : "a literal secret value";
  return {
    start,
    end: value.start + value.text.length,
    rule,
    message:
      `Found ${what} assigned to "${name}" (value redacted: ${value.quoted ? '"…"' : "…"}): entries are committed to git and injected into agent prompts, so a real credential would leak. ` +
      `Expected a placeholder such as ${placeholder}, \${ENV_VAR} or process.env.X, or a description of the pattern without the value.`,
  };
}

/** Literal secrets in assignments, configuration keys and command-line flags. */
export function detectAssignments(text: string): Finding[] {
  const found: Finding[] = [];
  ASSIGNMENT.lastIndex = 0;
  for (let m = ASSIGNMENT.exec(text); m; m = ASSIGNMENT.exec(text)) {
    let start = m.index;
    while (start > 0 && m.index - start < MAX_NAME && NAME_CHAR.test(text[start - 1] ?? "")) start--;
    const name = text.slice(start, m.index + (m[1] ?? "").length);
    // `pass` only as a word of its own (DB_PASS, dbPass, pass=), never inside one (compass, bypass).
    if (/^pass(?:[_-]?base)?$/i.test(m[1] ?? "") && !/^(?:[^A-Za-z]?[Pp][Aa][Ss][Ss]|[a-z0-9]P[Aa][Ss][Ss])$/.test(text.slice(Math.max(0, m.index - 1), m.index + 4))) continue;
    const quote = m[2] ?? "";
    if (quote !== "" && text[start - 1] !== quote) continue;
    if (!/^-{0,2}[A-Za-z_]/.test(name) || /^-*pwd$/i.test(name)) continue;
    const value = readValue(text, m.index + m[0].length);
    const envStyle = m[3] === "=" && !/\s/.test(m[0]) && /^[A-Z][A-Z0-9_]*$/.test(name);
    if (value && isSecretValue(value, envStyle)) found.push(finding(name, value, quote === "" ? start : start - 1));
    // Resume after the value: values never overlap, so hostile runs (`password=password=…`) stay linear.
    if (value) ASSIGNMENT.lastIndex = Math.max(ASSIGNMENT.lastIndex, value.start + value.text.length);
  }
  if (text.includes("--")) {
    FLAG.lastIndex = 0;
    for (let m = FLAG.exec(text); m; m = FLAG.exec(text)) {
      const name = `--${m[1] ?? ""}`;
      if (!SENSITIVE_NAME.test(name)) continue;
      const value = readValue(text, m.index + m[0].length);
      if (value && isSecretValue(value, false)) found.push(finding(name, value, m.index));
      if (value) FLAG.lastIndex = Math.max(FLAG.lastIndex, value.start + value.text.length);
    }
  }
  return found;
}
