import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../../src/check/sanitize/index.js";
import { fake, hits, noise, rules } from "./helpers.js";

const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
const B64 = "aB3dE5gH7jK9mN2pQ4sT6vW8yZ1cF0+/";

type Case = { name: string; text: string; rule: string; column: number; secret: string };

function c(name: string, before: string, secret: string, after: string, rule: string, column = before.length + 1): Case {
  return { name, text: before + secret + after, rule, column, secret };
}

const POSITIVES: Case[] = [
  c("AWS access key id (AKIA)", "The CI used ", fake("AK", "IA", noise(16, UPPER)), " for uploads.", "secret-aws-access-key"),
  c("AWS temporary key id (ASIA)", "creds: ", fake("AS", "IA", noise(16, UPPER)), "", "secret-aws-access-key"),
  c("AWS secret access key (env)", "", fake("AWS_SECRET_ACCESS_KEY=", noise(40, B64)), "", "secret-aws-secret-key"),
  c("AWS secret access key (yaml, quoted)", "  ", fake('aws_secret_access_key: "', noise(40, B64), '"'), "", "secret-aws-secret-key"),
  c("GCP API key", 'const key = "', fake("AI", "za", noise(35)), '";', "secret-gcp-api-key"),
  c("GCP service-account key id", "{ ", fake('"private_key_id": "', noise(40, HEX), '"'), " }", "secret-gcp-service-account"),
  c(
    "GCP service-account private key (JSON escapes)",
    '"private_key": "',
    fake("-----BEGIN ", "PRIVATE KEY-----\\n", noise(64, B64), "\\n-----END PRIVATE KEY-----\\n"),
    '"',
    "secret-private-key",
  ),
  c("Azure storage AccountKey", "DefaultEndpointsProtocol=https;AccountName=demo;", fake("AccountKey=", noise(86, B64), "=="), ";", "secret-azure-key"),
  c("Azure Service Bus SharedAccessKey", "Endpoint=sb://x/;SharedAccessKeyName=root;", fake("SharedAccessKey=", noise(43, B64), "="), "", "secret-azure-key"),
  c("Azure SAS signature", "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&", fake("sig=", noise(40), "%3D"), "", "secret-azure-sas"),
  c("GitHub classic token", "token ", fake("gh", "p_", noise(36)), "", "secret-github-token"),
  c("GitHub OAuth token", "", fake("gh", "o_", noise(36)), "", "secret-github-token"),
  c("GitHub user-to-server token", "x ", fake("gh", "u_", noise(36)), "", "secret-github-token"),
  c("GitHub server-to-server token", "x ", fake("gh", "s_", noise(36)), "", "secret-github-token"),
  c("GitHub refresh token", "x ", fake("gh", "r_", noise(36)), "", "secret-github-token"),
  c("GitHub fine-grained PAT", "pat: ", fake("github", "_pat_", noise(22), "_", noise(59)), "", "secret-github-token"),
  c("GitLab PAT", "use ", fake("gl", "pat-", noise(20)), " here", "secret-gitlab-token"),
  c("Slack bot token", "SLACK=", fake("xo", "xb-", "123456789012-1234567890123-", noise(24)), "", "secret-slack-token"),
  c("Slack user token", "", fake("xo", "xp-", "123456789012-1234567890123-", noise(24)), "", "secret-slack-token"),
  c("Slack app token", "", fake("xa", "pp-1-", "A0123456789-", noise(30)), "", "secret-slack-token"),
  c("Slack webhook URL", "post to ", fake("https://hooks.", "slack.com/services/", "T0AB12CD3/B0CD34EF5/", noise(24)), ".", "secret-slack-webhook"),
  c("Stripe live secret key", "", fake("sk", "_live_", noise(24)), "", "secret-stripe-key"),
  c("Stripe restricted key", "", fake("rk", "_live_", noise(24)), "", "secret-stripe-key"),
  c("Stripe publishable key", "", fake("pk", "_live_", noise(24)), "", "secret-stripe-key"),
  c("Stripe test secret key", "", fake("sk", "_test_", noise(24)), "", "secret-stripe-key"),
  c("Stripe webhook secret", "", fake("wh", "sec_", noise(32)), "", "secret-stripe-key"),
  c("RSA private key block", "", fake("-----BEGIN RSA ", "PRIVATE KEY-----\n", noise(64, B64), "\n", noise(64, B64), "\n-----END RSA PRIVATE KEY-----"), "\n", "secret-private-key"),
  c("OpenSSH private key block", "key:\n", fake("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", noise(70, B64), "\n-----END OPENSSH PRIVATE KEY-----"), "", "secret-private-key"),
  c(
    "encrypted PEM with headers",
    "",
    fake("-----BEGIN RSA ", "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,", noise(32, HEX), "\n\n", noise(64, B64), "\n-----END RSA PRIVATE KEY-----"),
    "",
    "secret-private-key",
  ),
  c("JWT", "Cookie: session=", fake("ey", "JhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.", noise(43)), "", "secret-jwt"),
  c("Bearer header", "Authorization: ", fake("Bearer ", noise(40)), "", "secret-auth-header"),
  c("Basic header", "-H 'Authorization: ", fake("Basic ", "dXNlcjpwYXNzd29yZDEyMw=="), "'", "secret-auth-header"),
  c("password= (unquoted)", "", fake("password=", "hunter2"), "", "secret-assignment"),
  c("passwd: (quoted)", "", fake('passwd: "', "letmein", '"'), "", "secret-assignment"),
  c("api_key = quoted", "", fake('api_key = "', noise(32), '"'), "", "secret-assignment"),
  c("apikey: unquoted", "  ", fake("apikey: ", noise(24)), "", "secret-assignment"),
  c("secret= quoted with symbols", "", fake('secret="', "s3cr3t-v4lue!", '"'), "", "secret-assignment"),
  c("token= unquoted", "curl ... ", fake("token=", "abc123def456"), "&x=1", "secret-assignment"),
  c("Go := assignment", "", fake('DB_PASSWORD := "', "Tr0ub4dor&3", '"'), "", "secret-assignment"),
  c("JSON password", "{ ", fake('"password": "', "correcthorse", '"'), " }", "secret-assignment"),
  c("Ruby hash rocket", "", fake("client_secret => '", "abc123def456", "'"), "", "secret-assignment"),
  c("CLI flag", "mysql ", fake("--password ", "s3cr3tP4ss"), " -h db", "secret-assignment"),
  c("exported token", "export ", fake("GITHUB_TOKEN=", noise(20)), "", "secret-assignment"),
  c("password P@ssw0rd", "", fake("password: ", "P@ssw0rd"), "", "secret-assignment"),
  c(".env line with a plain word", "", fake("SESSION_SECRET=", "keyboardcat"), "", "secret-assignment"),
  c("PHP variable", "<?php ", fake('$db_password = "', "Winter2024!", '";'), "", "secret-assignment", 8),
  c("postgres URL credentials", "DATABASE_URL=", fake("postgres://app:", "Sup3rS3cret", "@localhost:5432/app"), "", "url-credentials", 25),
  c("mongodb+srv credentials", "", fake("mongodb+srv://u:", "p4ssw0rd", "@cluster0.example.net/db"), "", "url-credentials", 15),
  c("redis password without user", "", fake("redis://:", "s3cret99", "@127.0.0.1:6379"), "", "url-credentials", 9),
];

describe("secret rules: positives", () => {
  it.each(POSITIVES)("$name → $rule", ({ text, rule, column }) => {
    expect(hits(text)).toContain(`${rule}@${text.slice(0, column - 1).split("\n").length}:${column - text.slice(0, column - 1).lastIndexOf("\n") - 1}`);
  });

  it.each(POSITIVES)("$name: the message never contains the secret", ({ text, secret }) => {
    const tail = secret.slice(Math.min(12, Math.floor(secret.length / 2)));
    for (const d of sanitizeText(text, "x.md")) {
      expect(d.message).not.toContain(tail);
      expect(d.severity).toBe("error");
    }
  });

  it("reports each secret once, by its most specific rule", () => {
    expect(rules(fake("token=", "gh", "p_", noise(36)))).toEqual(["secret-github-token"]);
    expect(rules(fake('api_key = "', "AI", "za", noise(35), '"'))).toEqual(["secret-gcp-api-key"]);
    expect(rules(fake("Authorization: Bearer ", "ey", "JhbGciOiJIUzI1NiJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.", noise(43)))).toEqual(["secret-jwt"]);
  });

  it("shows only the public prefix of a token", () => {
    const [d] = sanitizeText(fake("x ", "gh", "p_", noise(36)), "x.md");
    expect(d?.message).toContain("ghp_…");
    const [aws] = sanitizeText(fake("AK", "IA", noise(16, UPPER)), "x.md");
    expect(aws?.message).toContain("AKIA…");
    expect(aws?.message).toMatch(/placeholder such as <token>/);
  });

  it("names the key but not the value of an assignment", () => {
    const [d] = sanitizeText("password=hunter2", "x.md");
    expect(d?.message).toContain('"password"');
    expect(d?.message).not.toContain("hunter2");
    expect(d?.message).toContain("<password>");
  });
});

const NEGATIVES: [string, string][] = [
  ["angle placeholder", "password: <password>"],
  ["env interpolation", "password=${DB_PASSWORD}"],
  ["process.env", "const password = process.env.DB_PASSWORD;"],
  ["os.environ", 'api_key = os.environ["API_KEY"]'],
  ["getenv", 'token := os.Getenv("TOKEN")'],
  ["masked", "token: ***"],
  ["your-api-key", 'api_key="<your-api-key>"'],
  ["your_api_key_here", 'api_key = "your_api_key_here"'],
  ["changeme", "password: changeme"],
  ["empty", '"password": ""'],
  ["no value", "password="],
  ["helm template", "secret: {{ .Values.secret }}"],
  ["github actions secret", "token: ${{ secrets.GITHUB_TOKEN }}"],
  ["awaited call", "const token = await getToken();"],
  ["member access", "const token = req.headers.authorization;"],
  ["call with args", "token = jwt.sign(payload, key)"],
  ["constant reference", "password = DEFAULT_DB_PASSWORD"],
  ["tokenizer is not a token", 'tokenizer: "bert-base-uncased"'],
  ["max_tokens", "max_tokens: 4096"],
  ["password hash", 'password_hash = "$2b$12$abcdefghijklmnopqrstuv"'],
  ["prose after colon", "Token: rotate it daily."],
  ["prose", "The password field must be hashed with argon2id before it is stored."],
  ["prose about api keys", "The api_key is read from the environment at start-up."],
  ["python type hint", "def connect(api_key: Optional[str] = None):"],
  ["typescript type", "type Options = { token: string; password?: string }"],
  ["rust type", "struct Config { token: Option<String> }"],
  ["yaml vault tag", "password: !vault |"],
  ["AWS documentation sample", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"],
  ["AWS documentation secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
  ["filler GitHub token", `export GH=${fake("gh", "p_", "x".repeat(36))}`],
  ["short Stripe-like", "sk_live_abc"],
  ["bearer prose", "Bearer tokens must be validated on every request."],
  ["bearer placeholder", "Authorization: Bearer <token>"],
  ["bare PEM header in prose", "Reject uploads containing -----BEGIN PRIVATE KEY----- markers."],
  ["elided PEM block", "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"],
  ["jwt prefix alone", "JWTs start with eyJ because the header is JSON."],
  ["jwt.sign", "jwt.sign(payload, secret, { expiresIn: '1h' })"],
  ["random bytes", "secret = os.urandom(32)"],
  ["URL with placeholder password", "postgres://user:password@localhost/db"],
  ["URL with templated password", "postgres://user:${PGPASSWORD}@localhost:5432/app"],
  ["URL with angle placeholders", "postgres://<user>:<password>@<host>/db"],
  ["URL with user only", "https://user@example.com/path"],
  ["secretName", "secretName: my-tls-secret"],
  ["token type", 'token_type: "bearer"'],
  ["pwd shell variable", "PWD=./build"],
  ["json schema type", '{"token": "string"}'],
  ["code identifiers", "validateToken(secretKey, apiKeyHeader) returns passwordPolicy"],
  [".env placeholder", "SESSION_SECRET=changeme and JWT_SECRET=${JWT_SECRET} and API_TOKEN=value"],
  ["upper-case constant in code", "const API_KEY = settings; const SECRET = loadSecret;"],
  ["express-session prose secret", "app.use(session({ secret: 'keyboard cat' }))"],
  ["fetch credentials option", 'fetch(url, { credentials: "include" })'],
];

describe("secret rules: negatives", () => {
  it.each(NEGATIVES)("%s", (_name, text) => {
    expect(rules(text).filter((r) => r.startsWith("secret-") || r === "url-credentials")).toEqual([]);
  });
});
