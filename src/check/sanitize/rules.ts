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
  | "secret-figma-token"
  | "secret-openai-key"
  | "secret-anthropic-key"
  | "secret-twilio-key"
  | "secret-mailgun-key"
  | "secret-mailchimp-key"
  | "secret-pypi-token"
  | "secret-rubygems-key"
  | "secret-digitalocean-token"
  | "secret-discord-token"
  | "secret-telegram-token"
  | "secret-square-token"
  | "secret-doppler-token"
  | "secret-postman-key"
  | "secret-atlassian-token"
  | "secret-sentry-token"
  | "secret-newrelic-key"
  | "secret-alibaba-key"
  | "secret-age-key"
  | "secret-dropbox-token"
  | "secret-pulumi-token"
  | "secret-terraform-token"
  | "secret-flyio-token"
  | "secret-supabase-token"
  | "secret-planetscale-token"
  | "secret-azure-ad-secret"
  | "secret-google-oauth-secret"
  | "secret-firebase-key"
  | "secret-heroku-key"
  | "secret-replicate-token"
  | "secret-xai-key"
  | "secret-perplexity-key"
  | "secret-shippo-token"
  | "secret-netlify-token"
  | "secret-tailscale-key"
  | "secret-dynatrace-token"
  | "secret-airtable-token"
  | "secret-mapbox-token"
  | "secret-typeform-token"
  | "secret-npm-token"
  | "secret-groq-key"
  | "secret-huggingface-token"
  | "secret-linear-key"
  | "secret-notion-token"
  | "secret-sendgrid-key"
  | "secret-shopify-token"
  | "secret-grafana-token"
  | "secret-1password-token"
  | "secret-vault-token"
  | "secret-vercel-token"
  | "secret-databricks-token"
  | "secret-docker-token"
  | "secret-putty-key"
  | "secret-cli-password"
  | "url-credentials"
  | "ip-address"
  | "email"
  | "host-not-allowed"
  | "absolute-path"
  | "path-outside-repo"
  | "deny-pattern"
  | "prompt-injection"
  | "hidden-text";

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
  { id: "secret-openai-key", severity: "error", description: "An OpenAI API key" },
  { id: "secret-anthropic-key", severity: "error", description: "An Anthropic API key" },
  { id: "secret-twilio-key", severity: "error", description: "A Twilio API key" },
  { id: "secret-mailgun-key", severity: "error", description: "A Mailgun API key" },
  { id: "secret-mailchimp-key", severity: "error", description: "A Mailchimp API key" },
  { id: "secret-pypi-token", severity: "error", description: "A PyPI upload token" },
  { id: "secret-rubygems-key", severity: "error", description: "A RubyGems API key" },
  { id: "secret-digitalocean-token", severity: "error", description: "A DigitalOcean token" },
  { id: "secret-discord-token", severity: "error", description: "A Discord webhook URL or bot token" },
  { id: "secret-telegram-token", severity: "error", description: "A Telegram bot token" },
  { id: "secret-square-token", severity: "error", description: "A Square access token" },
  { id: "secret-doppler-token", severity: "error", description: "A Doppler token" },
  { id: "secret-postman-key", severity: "error", description: "A Postman API key" },
  { id: "secret-atlassian-token", severity: "error", description: "An Atlassian API token" },
  { id: "secret-sentry-token", severity: "error", description: "A Sentry auth token" },
  { id: "secret-newrelic-key", severity: "error", description: "A New Relic key" },
  { id: "secret-alibaba-key", severity: "error", description: "An Alibaba Cloud access key id" },
  { id: "secret-age-key", severity: "error", description: "An age secret key" },
  { id: "secret-dropbox-token", severity: "error", description: "A Dropbox access token" },
  { id: "secret-pulumi-token", severity: "error", description: "A Pulumi access token" },
  { id: "secret-terraform-token", severity: "error", description: "A Terraform Cloud token" },
  { id: "secret-flyio-token", severity: "error", description: "A Fly.io token" },
  { id: "secret-supabase-token", severity: "error", description: "A Supabase access token" },
  { id: "secret-planetscale-token", severity: "error", description: "A PlanetScale token or password" },
  { id: "secret-azure-ad-secret", severity: "error", description: "A Microsoft Entra (Azure AD) client secret" },
  { id: "secret-google-oauth-secret", severity: "error", description: "A Google OAuth client secret" },
  { id: "secret-firebase-key", severity: "error", description: "A Firebase Cloud Messaging server key" },
  { id: "secret-heroku-key", severity: "error", description: "A Heroku API key" },
  { id: "secret-replicate-token", severity: "error", description: "A Replicate API token" },
  { id: "secret-xai-key", severity: "error", description: "An xAI API key" },
  { id: "secret-perplexity-key", severity: "error", description: "A Perplexity API key" },
  { id: "secret-shippo-token", severity: "error", description: "A Shippo API token" },
  { id: "secret-netlify-token", severity: "error", description: "A Netlify access token" },
  { id: "secret-tailscale-key", severity: "error", description: "A Tailscale key" },
  { id: "secret-dynatrace-token", severity: "error", description: "A Dynatrace API token" },
  { id: "secret-airtable-token", severity: "error", description: "An Airtable personal access token" },
  { id: "secret-mapbox-token", severity: "error", description: "A Mapbox secret token" },
  { id: "secret-typeform-token", severity: "error", description: "A Typeform token" },
  { id: "secret-npm-token", severity: "error", description: "An npm access token" },
  { id: "secret-groq-key", severity: "error", description: "A Groq API key" },
  { id: "secret-huggingface-token", severity: "error", description: "A Hugging Face access token" },
  { id: "secret-linear-key", severity: "error", description: "A Linear API key" },
  { id: "secret-notion-token", severity: "error", description: "A Notion integration token" },
  { id: "secret-sendgrid-key", severity: "error", description: "A SendGrid API key" },
  { id: "secret-shopify-token", severity: "error", description: "A Shopify access token" },
  { id: "secret-grafana-token", severity: "error", description: "A Grafana token" },
  { id: "secret-1password-token", severity: "error", description: "A 1Password service account token" },
  { id: "secret-vault-token", severity: "error", description: "A HashiCorp Vault token" },
  { id: "secret-vercel-token", severity: "error", description: "A Vercel token" },
  { id: "secret-databricks-token", severity: "error", description: "A Databricks token" },
  { id: "secret-docker-token", severity: "error", description: "A Docker Hub access token" },
  { id: "secret-putty-key", severity: "error", description: "A PuTTY private key file (`PuTTY-User-Key-File-…` with `Private-Lines:`)" },
  { id: "secret-cli-password", severity: "error", description: "A password on a command line (`mysql -pS3cret`, `sshpass -p …`, `redis-cli -a …`)" },
  { id: "secret-figma-token", severity: "error", description: "A Figma access token" },
  { id: "secret-assignment", severity: "error", description: "Literal value assigned to a password / secret / token / API-key name" },
  { id: "url-credentials", severity: "error", description: "URL or connection string with an embedded password (`scheme://user:pass@host`)" },
  { id: "ip-address", severity: "error", description: "IPv4 or IPv6 address (loopback, unspecified, documentation and a few well-known addresses are allowed)" },
  { id: "email", severity: "error", description: "E-mail address (addresses at reserved example domains are allowed)" },
  { id: "host-not-allowed", severity: "error", description: "Hostname or URL host outside the built-in documentation hosts and `sanitize.allowHosts`" },
  { id: "absolute-path", severity: "error", description: "Absolute file-system path (`/home/…`, `/Users/…`, `/etc/…`, `C:\\…`, `~/…`)" },
  { id: "path-outside-repo", severity: "error", description: "Relative path whose `..` segments leave the repository" },
  { id: "deny-pattern", severity: "error", description: "Text matching one of `sanitize.denyPatterns` (organisation or customer names)" },
  { id: "prompt-injection", severity: "error", description: "Text that instructs the agent (\"ignore previous instructions\", role tags, fake system headings …)" },
  { id: "hidden-text", severity: "error", description: "Text hidden in characters that show nothing (Unicode tag characters, runs of variation selectors): a model reads it, a reviewer does not" },
];

const SEVERITY = new Map<SanitizeRuleId, Severity>(SANITIZE_RULES.map((rule) => [rule.id, rule.severity]));

/** Default severity of a sanitization rule (all are errors; config `rules` may change them). */
export function severityOf(rule: SanitizeRuleId): Severity {
  return SEVERITY.get(rule) ?? "error";
}
