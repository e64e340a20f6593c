/**
 * The maintained secret rules: secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend,
 * MIT, patterns kept up to date by the secretlint project; offline, no native code), run through
 * secretlint's documented rule interface by a small synchronous host.
 *
 * Why not @secretlint/core's `lintSource`: every call in core 12.x (the last line for Node 20) feeds
 * a process-wide profiler whose observer scans all earlier marks, so the cost grows with every call
 * (measured: 200 calls 1.2 s, 1,000 calls 18 s; secretlint issues #1633/#1653, fixed in 13.x, which
 * needs Node 22). The rules themselves are plain regular expressions over the text.
 *
 * Left out: `filter-comments` (it honours `secretlint-disable` comments: an entry must not switch
 * secret detection off itself), `gcp` (it only reads .json/.p12 files), and `basicauth` /
 * `database-connection-string`, where cairn's own `url-credentials` is better: it knows placeholders
 * (`postgres://<user>:<password>@<host>`, which secretlint reports) and still checks the URL's host. secretlint's messages quote
 * the secret; cairn writes its own, with a redacted prefix only.
 */
import { rules as PRESET_RULES } from "@secretlint/secretlint-rule-preset-recommend";
import { type Finding, redacted } from "./finding.js";
import { isFiller } from "./placeholder.js";
import type { SanitizeRuleId } from "./rules.js";

type Mapped = { rule: SanitizeRuleId; what: string };

/** secretlint rule id (without the `@secretlint/secretlint-rule-` prefix) → cairn rule id and what it found. */
const MAPPING: Record<string, Mapped> = {
  aws: { rule: "secret-aws-secret-key", what: "an AWS secret access key" },
  npm: { rule: "secret-npm-token", what: "an npm access token" },
  slack: { rule: "secret-slack-token", what: "a Slack token" },
  openai: { rule: "secret-openai-key", what: "an OpenAI API key" },
  anthropic: { rule: "secret-anthropic-key", what: "an Anthropic API key" },
  groq: { rule: "secret-groq-key", what: "a Groq API key" },
  huggingface: { rule: "secret-huggingface-token", what: "a Hugging Face access token" },
  linear: { rule: "secret-linear-key", what: "a Linear API key" },
  notion: { rule: "secret-notion-token", what: "a Notion integration token" },
  privatekey: { rule: "secret-private-key", what: "a private key" },
  sendgrid: { rule: "secret-sendgrid-key", what: "a SendGrid API key" },
  shopify: { rule: "secret-shopify-token", what: "a Shopify access token" },
  github: { rule: "secret-github-token", what: "a GitHub token" },
  gitlab: { rule: "secret-gitlab-token", what: "a GitLab token" },
  grafana: { rule: "secret-grafana-token", what: "a Grafana token" },
  "1password": { rule: "secret-1password-token", what: "a 1Password service account token" },
  "hashicorp-vault": { rule: "secret-vault-token", what: "a HashiCorp Vault token" },
  vercel: { rule: "secret-vercel-token", what: "a Vercel token" },
  databricks: { rule: "secret-databricks-token", what: "a Databricks token" },
  docker: { rule: "secret-docker-token", what: "a Docker Hub access token" },
  figma: { rule: "secret-figma-token", what: "a Figma access token" },
};

const SKIPPED = new Set(["filter-comments", "gcp", "basicauth", "database-connection-string"]);
const SLACK_WEBHOOK: Mapped = { rule: "secret-slack-webhook", what: "a Slack webhook URL" };
const PREFIX = "@secretlint/secretlint-rule-";

type Hit = { range: readonly [number, number]; mapped: Mapped };
type FileHandler = (source: { content: string; filePath?: string; ext: string; contentType: "text" }) => unknown;

let current: Hit[] = [];
let handlers: FileHandler[] | undefined;

/** Create each preset rule once, with a context that collects reports into `current`. */
function setUp(): FileHandler[] {
  const out: FileHandler[] = [];
  for (const creator of PRESET_RULES) {
    const name = creator.meta.id.startsWith(PREFIX) ? creator.meta.id.slice(PREFIX.length) : creator.meta.id;
    const mapped = MAPPING[name];
    if (SKIPPED.has(name) || !mapped) continue;
    const context = {
      sharedOptions: {},
      locale: "en",
      createTranslator: () => (messageId: string, data?: unknown) => ({ message: "", messageId, data }),
      report: (descriptor: { range: readonly [number, number] }) => current.push({ range: descriptor.range, mapped }),
      ignore: () => {},
    };
    // The rule interface is documented (SecretLintRuleCreator); the context is the part the rules use.
    const rule = (creator.create as unknown as (context: unknown, options: unknown) => { file?: FileHandler })(context, {});
    if (rule.file) out.push(rule.file.bind(rule));
  }
  return out;
}

/** The public, non-secret head of a token for the message: up to its last `-`, `_` or `.` in the first 16 characters, else 4 characters. */
function publicPrefix(token: string): string {
  const head = token.slice(0, 16);
  const cut = Math.max(head.lastIndexOf("-"), head.lastIndexOf("_"), head.lastIndexOf("."));
  return cut >= 2 ? token.slice(0, cut + 1) : token.slice(0, Math.min(4, Math.floor(token.length / 4)));
}

/** Secrets the preset finds in `text`, skipping documentation samples (`…EXAMPLE`, runs of x/0). */
export function detectWithSecretlint(text: string): Finding[] {
  handlers ??= setUp();
  current = [];
  for (const file of handlers) file({ content: text, ext: ".md", contentType: "text" });
  const hits = current;
  current = [];
  const found: Finding[] = [];
  for (const hit of hits) {
    const [start, end] = hit.range;
    const token = text.slice(start, end);
    const mapped = hit.mapped.rule === "secret-slack-token" && token.startsWith("http") ? SLACK_WEBHOOK : hit.mapped;
    const prefix = mapped.rule === "secret-private-key" ? "" : mapped === SLACK_WEBHOOK ? token.slice(0, token.indexOf(".com/") + 5) : publicPrefix(token);
    const firstSeparator = token.slice(0, 10).search(/[-_.]/);
    if (isFiller(token.slice(prefix.length)) || (firstSeparator > 0 && isFiller(token.slice(firstSeparator + 1)))) continue;
    const shown = mapped.rule === "secret-private-key" ? "-----BEGIN … PRIVATE KEY-----" : redacted(prefix);
    found.push({
      start,
      end,
      rule: mapped.rule,
      message: `Found ${mapped.what} (${shown}): entries are committed to git and injected into agent prompts, so a real credential would leak. Expected: replace it with a placeholder such as <token> or describe the pattern generally (e.g. "${mapped.what} was hard-coded in the config").`,
    });
  }
  return found;
}
