/**
 * Judging whether a value is a real secret or a placeholder / reference.
 *
 * Treated as placeholders (never reported):
 * - empty or masked values: `""`, `***`, `xxxx`, `...`, `…`, `•••`;
 * - template and variable syntax: `<token>`, `{token}`, `{{ token }}`, `${VAR}`, `$VAR`, `%VAR%`, `[REDACTED]`;
 * - references to where the secret lives: `process.env.X`, `os.environ[...]`, `getenv(...)`,
 *   `ENV[...]`, `secrets.X`, `!vault`, and (unquoted) code such as `config.apiKey`,
 *   `getToken()`, `DEFAULT_API_KEY`, type annotations (`Optional[str]`, `Option<String>`),
 *   YAML tags/anchors/aliases and Ruby symbols (`!tag`, `&a`, `*a`, `:sym`);
 * - generic stand-in words: `password`, `secret`, `token`, `changeme`, `example`, `dummy`,
 *   `placeholder`, `redacted`, `your-api-key`, `guest`, `admin`, `root`, `null`, `none`, `true` …
 * - documentation samples containing `EXAMPLE` (AWS's `AKIAIOSFODNN7EXAMPLE`) or long runs of `x`/`0`.
 */

const MASKED = /^[\s*xX•.…#_\-=]*$/;
const TEMPLATE = /^(?:<[^>]*>|\{[^}]*\}|\[[^\]]*\]|%[A-Za-z_][\w]*%|\$[{(]?[A-Za-z_][\w.]*[})]?|\{\{.*\}\})$/s;
const REFERENCE_HINT = /process\.env|import\.meta\.env|os\.environ|getenv|\bENV\[|\benv\(|\bsecrets\.|\bvault:|!vault|System\.getenv|Deno\.env/i;
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*|\[[^\]]*\])*(?:\(.*)?;?$/s;
const FILLER = /example|placeholder|changeme|change[_-]me|redacted|dummy|x{6,}|0{8,}|\*{3,}|\.\.\.|…/i;
const GENERIC_WORDS = new Set([
  "password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "api-key", "key",
  "changeme", "example", "dummy", "fake", "test", "testing", "placeholder", "redacted", "hidden",
  "none", "null", "nil", "undefined", "true", "false", "empty", "todo", "tbd", "foo", "bar", "baz",
  "value", "string", "str", "number", "required", "optional", "secretvalue", "mysecret", "mypassword",
  "yourpassword", "yourtoken", "xxx", "abc", "123", "1234", "12345", "123456", "guest", "admin", "root",
  "user", "username", "pass123", "password123", "secret123",
]);

/** True when a value assigned to a secret-looking name is a placeholder or a reference, not a literal secret. */
export function isPlaceholder(value: string, quoted: boolean): boolean {
  const v = value.trim();
  if (MASKED.test(v)) return true;
  if (TEMPLATE.test(v)) return true;
  if (v.includes("${") || v.includes("{{") || /<[A-Za-z_][\w -]*>/.test(v)) return true;
  if (REFERENCE_HINT.test(v)) return true;
  if (FILLER.test(v)) return true;
  const lower = v.toLowerCase();
  if (GENERIC_WORDS.has(lower)) return true;
  if (/^(?:your|my|some|the)[\s_-]?[a-z]/i.test(v) && !/\d/.test(v)) return true;
  if (/(?:^|[-_.])(?:your|my)[-_][a-z]/i.test(v) && !/\d{3}/.test(v)) return true; // xoxb-your-bot-token
  if (!quoted && /^[!&*@%$<{\[:]/.test(v)) return true; // YAML tags/anchors/aliases, symbols, templates
  if (!quoted && /^[A-Z]\w*[[<]/.test(v)) return true; // type annotations: Optional[str], Option<String>
  if (!quoted && CODE_REFERENCE.test(v) && !/\d{3}/.test(v) && (/[.(\[]|::|->/.test(v) || /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v))) return true;
  return false;
}

/**
 * An unquoted value only counts as a literal secret when it looks like one: at least 6
 * characters mixing letters with digits or symbols. Bare words (`required`, `Bearer`, `await`)
 * are prose or code and are never reported; pure-letter passwords are the accepted gap.
 */
export function looksSecret(value: string): boolean {
  if (value.length < 6) return false;
  const letters = /[A-Za-z]/.test(value);
  const digits = /\d/.test(value);
  const symbols = /[^A-Za-z0-9\s]/.test(value);
  if (!letters) return false;
  if (/^\d+(?:\.\d+)*[a-z]{0,3}$/i.test(value)) return false; // sizes, versions: 10mb, 1.2.3
  if (/^[a-z]+(?:[._-][a-z]+)+$/i.test(value)) return false; // identifiers: some-name, a.b.c
  return digits || symbols;
}

/** True for the body of a known-prefix token that is obviously a documentation sample. */
export function isFiller(body: string): boolean {
  if (FILLER.test(body) || /^(?:your|my|the|some)[-_]?[a-z]+(?:[-_][a-z]+)*$/i.test(body)) return true;
  const alnum = body.replace(/[^A-Za-z0-9]/g, "");
  return new Set(alnum).size <= 2;
}
