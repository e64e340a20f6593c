/**
 * Provider tokens with a recognisable shape that secretlint's preset (secretlint.ts) does not cover,
 * or covers only in one of its formats; formats as the providers document them and public scanners
 * match them. Every pattern starts at a literal or a short bounded class and has bounded repeats.
 */
import type { TokenSpec } from "./secrets.js";

const at = (n: number) => () => n;
const upTo = (sep: string) => (m: string) => m.indexOf(sep) + sep.length;
/** `(?<![\w-])` … `(?![\w-])`: a token standing alone. */
const alone = (body: string, flags = "g") => new RegExp(String.raw`(?<![\w-])(?:${body})(?![\w-])`, flags);

export const PROVIDER_SPECS: readonly TokenSpec[] = [
  { rule: "secret-openai-key", what: "an OpenAI API key", pattern: alone(String.raw`sk-(?:proj|svcacct|admin)-([A-Za-z0-9_-]{40,250})|sk-([A-Za-z0-9]{48})`), prefixLength: (m) => /^sk-(?:proj|svcacct|admin)-/.exec(m)?.[0].length ?? 3 },
  { rule: "secret-anthropic-key", what: "an Anthropic API key", pattern: alone(String.raw`sk-ant-(?:api|admin|sid)\d\d-([A-Za-z0-9_-]{80,120})`), prefixLength: (m) => m.indexOf("-", 3) + 1 },
  { rule: "secret-sendgrid-key", what: "a SendGrid API key", pattern: alone(String.raw`SG\.([\w-]{22}\.[\w-]{43})`), prefixLength: at(3) },
  { rule: "secret-twilio-key", what: "a Twilio API key", pattern: alone(String.raw`SK([0-9a-fA-F]{32})`), prefixLength: at(2), accept: (m) => /[a-f]/i.test(m[1] ?? "") && /\d/.test(m[1] ?? "") },
  { rule: "secret-mailgun-key", what: "a Mailgun API key", pattern: alone(String.raw`key-([0-9a-z]{32})|([0-9a-f]{32})-[0-9a-f]{8}-[0-9a-f]{8}`), prefixLength: (m) => (m.startsWith("key-") ? 4 : 0) },
  { rule: "secret-mailchimp-key", what: "a Mailchimp API key", pattern: alone(String.raw`([0-9a-f]{32})-us\d{1,2}`), prefixLength: at(0) },
  { rule: "secret-pypi-token", what: "a PyPI upload token", pattern: alone(String.raw`pypi-AgE([A-Za-z0-9_-]{50,300})`), prefixLength: at(5) },
  { rule: "secret-rubygems-key", what: "a RubyGems API key", pattern: alone(String.raw`rubygems_([a-f0-9]{48})`), prefixLength: at(9) },
  { rule: "secret-digitalocean-token", what: "a DigitalOcean token", pattern: alone(String.raw`do[opr]_v1_([a-f0-9]{64})`), prefixLength: at(7) },
  { rule: "secret-discord-token", what: "a Discord webhook URL or bot token", pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{17,20}\/([\w-]{60,70})|(?<![\w.-])[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.([\w-]{27,38})(?![\w.-])/g, prefixLength: (m) => (m.startsWith("http") ? m.indexOf("/webhooks/") + 10 : 2), accept: (m) => m[0].startsWith("http") || /\d/.test(m[0].slice(0, 25)) },
  { rule: "secret-telegram-token", what: "a Telegram bot token", pattern: /(?<![\w:])\d{8,10}:AA([A-Za-z0-9_-]{33})(?![\w-])/g, prefixLength: upTo(":") },
  { rule: "secret-square-token", what: "a Square access token", pattern: alone(String.raw`sq0atp-([\w-]{22})|sq0csp-([\w-]{43})|EAAA([\w-]{60})`), prefixLength: (m) => (m.startsWith("EAAA") ? 4 : 7) },
  { rule: "secret-doppler-token", what: "a Doppler token", pattern: alone(String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.([A-Za-z0-9]{40,44})`), prefixLength: (m) => m.indexOf(".", 3) + 1 },
  { rule: "secret-postman-key", what: "a Postman API key", pattern: alone(String.raw`PMAK-([a-f0-9]{24}-[a-f0-9]{34})`), prefixLength: at(5) },
  { rule: "secret-atlassian-token", what: "an Atlassian API token", pattern: alone(String.raw`ATATT3([A-Za-z0-9_\-=]{180,200})`), prefixLength: at(6) },
  { rule: "secret-sentry-token", what: "a Sentry auth token", pattern: /(?<![\w-])sntry[us]_([A-Za-z0-9+/=_]{40,400})(?![\w-])/g, prefixLength: at(7) },
  { rule: "secret-newrelic-key", what: "a New Relic key", pattern: alone(String.raw`NR(?:AK|II|JS)-([A-Za-z0-9]{19,27})`), prefixLength: at(5) },
  { rule: "secret-alibaba-key", what: "an Alibaba Cloud access key id", pattern: alone(String.raw`LTAI([A-Za-z0-9]{12,20})`), prefixLength: at(4) },
  { rule: "secret-age-key", what: "an age secret key", pattern: alone(String.raw`AGE-SECRET-KEY-1([QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`), prefixLength: at(15) },
  { rule: "secret-dropbox-token", what: "a Dropbox access token", pattern: /(?<![\w.-])sl\.(?:u\.)?([A-Za-z0-9_-]{130,1400})(?![\w-])/g, prefixLength: at(3) },
  { rule: "secret-pulumi-token", what: "a Pulumi access token", pattern: alone(String.raw`pul-([a-f0-9]{40})`), prefixLength: at(4) },
  { rule: "secret-terraform-token", what: "a Terraform Cloud token", pattern: /(?<![\w.-])[A-Za-z0-9]{14}\.atlasv1\.([A-Za-z0-9_=-]{60,70})(?![\w-])/g, prefixLength: (m) => m.indexOf("atlasv1.") + 8 },
  { rule: "secret-flyio-token", what: "a Fly.io token", pattern: alone(String.raw`fo1_([\w-]{43})`), prefixLength: at(4) },
  { rule: "secret-supabase-token", what: "a Supabase access token", pattern: alone(String.raw`sbp_([a-f0-9]{40})`), prefixLength: at(4) },
  { rule: "secret-planetscale-token", what: "a PlanetScale token or password", pattern: alone(String.raw`pscale_(?:tkn|pw|oauth)_([\w.-]{32,64})`), prefixLength: (m) => m.indexOf("_", 7) + 1 },
  { rule: "secret-azure-ad-secret", what: "a Microsoft Entra (Azure AD) client secret", pattern: /(?<![\w~.-])[A-Za-z0-9_~.]{3}\dQ~([A-Za-z0-9_~.-]{31,34})(?![\w~.-])/g, prefixLength: at(0) },
  { rule: "secret-google-oauth-secret", what: "a Google OAuth client secret", pattern: alone(String.raw`GOCSPX-([A-Za-z0-9_-]{28})`), prefixLength: at(7) },
  { rule: "secret-firebase-key", what: "a Firebase Cloud Messaging server key", pattern: alone(String.raw`AAAA[A-Za-z0-9_-]{7}:([A-Za-z0-9_-]{140})`), prefixLength: at(4) },
  { rule: "secret-heroku-key", what: "a Heroku API key", pattern: alone(String.raw`HRKU-AA([A-Za-z0-9_-]{58})`), prefixLength: at(5) },
  { rule: "secret-replicate-token", what: "a Replicate API token", pattern: alone(String.raw`r8_([A-Za-z0-9]{37})`), prefixLength: at(3) },
  { rule: "secret-xai-key", what: "an xAI API key", pattern: alone(String.raw`xai-([A-Za-z0-9]{80})`), prefixLength: at(4) },
  { rule: "secret-perplexity-key", what: "a Perplexity API key", pattern: alone(String.raw`pplx-([A-Za-z0-9]{48})`), prefixLength: at(5) },
  { rule: "secret-shippo-token", what: "a Shippo API token", pattern: alone(String.raw`shippo_(?:live|test)_([a-f0-9]{40})`), prefixLength: (m) => m.indexOf("_", 7) + 1 },
  { rule: "secret-netlify-token", what: "a Netlify access token", pattern: alone(String.raw`nfp_([A-Za-z0-9]{36,40})`), prefixLength: at(4) },
  { rule: "secret-tailscale-key", what: "a Tailscale key", pattern: alone(String.raw`tskey-(?:auth|api|client|webhook)-([A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,40})`), prefixLength: (m) => m.indexOf("-", 6) + 1 },
  { rule: "secret-dynatrace-token", what: "a Dynatrace API token", pattern: alone(String.raw`dt0c01\.([A-Z0-9]{24}\.[A-Z0-9]{64})`), prefixLength: at(7) },
  { rule: "secret-airtable-token", what: "an Airtable personal access token", pattern: alone(String.raw`pat[A-Za-z0-9]{14}\.([a-f0-9]{64})`), prefixLength: at(3) },
  { rule: "secret-mapbox-token", what: "a Mapbox secret token", pattern: /(?<![\w.-])sk\.eyJ([\w-]{20,300}\.[\w-]{10,60})(?![\w-])/g, prefixLength: at(3) },
  { rule: "secret-typeform-token", what: "a Typeform token", pattern: alone(String.raw`tfp_([A-Za-z0-9_.=-]{55,64})`), prefixLength: at(4) },
];
