/** The sanitization rule ids, their severities and one-line descriptions (the README lists them). */
import type { Severity } from "../../entry/diagnostic.js";

export type SanitizeRuleId =
  | "secret-private-key"
  | "secret-aws-access-key"
  | "secret-aws-secret-key"
  | "secret-gcp-api-key"
  | "secret-gcp-service-account"
  | "secret-azure-key"
  | "secret-azure-sas"
  | "secret-github-token"
  | "secret-gitlab-token"
  | "secret-slack-token"
  | "secret-slack-webhook"
  | "secret-stripe-key"
  | "secret-jwt"
  | "secret-auth-header"
  | "secret-assignment"
  | "url-credentials"
  | "ip-address"
  | "email"
  | "host-not-allowed"
  | "absolute-path"
  | "path-outside-repo"
  | "deny-pattern"
  | "prompt-injection";

export type SanitizeRule = { id: SanitizeRuleId; severity: Severity; description: string };

/** Every sanitization rule, in the order the README documents them. */
export const SANITIZE_RULES: readonly SanitizeRule[] = [
  { id: "secret-private-key", severity: "error", description: "PEM private key block (`-----BEGIN … PRIVATE KEY-----` followed by key material)" },
  { id: "secret-aws-access-key", severity: "error", description: "AWS access key id (`AKIA…`, `ASIA…` and the other AWS key-id prefixes)" },
  { id: "secret-aws-secret-key", severity: "error", description: "AWS secret access key assigned to an `aws…secret…` name" },
  { id: "secret-gcp-api-key", severity: "error", description: "Google Cloud API key (`AIza…`)" },
  { id: "secret-gcp-service-account", severity: "error", description: "Google service-account JSON `private_key_id` / `private_key` value" },
  { id: "secret-azure-key", severity: "error", description: "Azure `AccountKey=` / `SharedAccessKey=` in a connection string" },
  { id: "secret-azure-sas", severity: "error", description: "Azure shared access signature (`sig=` query parameter)" },
  { id: "secret-github-token", severity: "error", description: "GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`)" },
  { id: "secret-gitlab-token", severity: "error", description: "GitLab token (`glpat-` and related prefixes)" },
  { id: "secret-slack-token", severity: "error", description: "Slack token (`xoxb-`, `xoxp-`, `xapp-` …)" },
  { id: "secret-slack-webhook", severity: "error", description: "Slack incoming-webhook URL (`hooks.slack.com/services/…`)" },
  { id: "secret-stripe-key", severity: "error", description: "Stripe key (`sk_live_`, `rk_live_`, `pk_live_`, `sk_test_`, `whsec_` …)" },
  { id: "secret-jwt", severity: "error", description: "JSON Web Token (three base64url segments starting `eyJ`)" },
  { id: "secret-auth-header", severity: "error", description: "Literal `Bearer` / `Basic` credential, e.g. in an `Authorization` header" },
  { id: "secret-assignment", severity: "error", description: "Literal value assigned to a password / secret / token / API-key name" },
  { id: "url-credentials", severity: "error", description: "URL or connection string with an embedded password (`scheme://user:pass@host`)" },
  { id: "ip-address", severity: "error", description: "IPv4 or IPv6 address (loopback, unspecified, documentation and a few well-known addresses are allowed)" },
  { id: "email", severity: "error", description: "E-mail address (addresses at reserved example domains are allowed)" },
  { id: "host-not-allowed", severity: "error", description: "Hostname or URL host outside the built-in documentation hosts and `sanitize.allowHosts`" },
  { id: "absolute-path", severity: "error", description: "Absolute file-system path (`/home/…`, `/Users/…`, `/etc/…`, `C:\\…`, `~/…`)" },
  { id: "path-outside-repo", severity: "error", description: "Relative path whose `..` segments leave the repository" },
  { id: "deny-pattern", severity: "error", description: "Text matching one of `sanitize.denyPatterns` (organisation or customer names)" },
  { id: "prompt-injection", severity: "error", description: "Text that instructs the agent (\"ignore previous instructions\", role tags, fake system headings …)" },
];

const SEVERITY = new Map<SanitizeRuleId, Severity>(SANITIZE_RULES.map((rule) => [rule.id, rule.severity]));

/** Default severity of a sanitization rule (all are errors; config `rules` may change them). */
export function severityOf(rule: SanitizeRuleId): Severity {
  return SEVERITY.get(rule) ?? "error";
}
