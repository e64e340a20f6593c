/**
 * Hostile entry bodies for the linear-time bench and its regression test: repetitions of each rule's
 * trigger prefix (what a rule's scan starts at), wrapped in a valid entry just under the 1 MB cap.
 * Secret-shaped prefixes are assembled from parts so the repository holds no token-like literal.
 */

/** Trigger prefixes, by the rule family whose scan they aim at. */
export const TRIGGERS: ReadonlyArray<[family: string, prefix: string]> = [
  ["assignments", "password="],
  ["assignments", "api_key: "],
  ["assignments", "--password "],
  ["assignments", "DB_PASS="],
  ["url credentials", "?token=a1&"],
  ["url credentials", "postgres://a:"],
  ["urls", "http://"],
  ["hosts", "x.internal "],
  ["hosts", "a.b."],
  ["e-mail", "a@"],
  ["ip", "1.1."],
  ["ipv6", "::"],
  ["ipv6", "f:f:"],
  ["paths", "/home/"],
  ["paths", "../"],
  ["paths", "~/"],
  ["paths", "C:\\"],
  ["pem", "-----BEGIN PRIVATE KEY-----\n"],
  ["putty", "PuTTY-User-Key-File-3: "],
  ["jwt", "eyJ"],
  ["auth header", "Bearer "],
  ["azure", "AccountKey="],
  ["azure", "sig="],
  ["provider tokens", ["gh", "p_"].join("")],
  ["provider tokens", ["sk", "-"].join("")],
  ["provider tokens", ["sk", "-ant-api03-"].join("")],
  ["provider tokens", ["xo", "xb-"].join("")],
  ["provider tokens", "SG."],
  ["provider tokens", "AKIA"],
  ["provider tokens", "0123456789abcdef"],
  ["provider tokens", "hvs."],
  ["cli passwords", "mysql -p"],
  ["prompt injection", "ignore "],
  ["prompt injection", "system prompt "],
  ["prompt injection", "the user "],
  ["prompt injection", "instructions: "],
  ["prompt injection", "act as "],
  ["prompt injection", "you are now "],
  ["prompt injection", "<|im_start|>"],
  ["prompt injection", "i g n o r e "],
  ["prompt injection", "aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM="],
  ["prompt injection", "## SYSTEM\n"],
  ["directives", "<!-- cairn-disable "],
  ["sections", "Evidence: "],
  ["sections", "Verify: "],
  ["sections", "- "],
  ["markdown", "# "],
  ["markdown", "```\n"],
  ["markdown", "["],
  ["markdown", "*a"],
  ["anchors", "src/a.ts:1-2, "],
];

const FRONTMATTER = "---\nlastConfirmed: 2026-02-12\nprovenance: independent\n---\n";
const TAIL = "\n\nEvidence: src/auth.ts:1-2, handleRequest() — the context is not checked after the upstream call.\nVerify: grep for ctx.Err() after fetch() calls in src/.\n";

/** Ordinary entry prose, repeated to size: the benign baseline. */
const BENIGN =
  "Auth middleware often swallows context cancellation errors; check ctx.Err() after upstream calls in src/auth.ts and return early. " +
  "Retries without jitter stampede after deploys, so the p99 of `GET /orders` doubles; see handleRequest() and the backoff helper.\n";

/** A whole entry file of about `bytes` bytes whose body repeats `prefix` (or ordinary prose when `prefix` is undefined). */
export function hostileEntry(prefix: string | undefined, bytes: number): string {
  const unit = prefix ?? BENIGN;
  const room = bytes - FRONTMATTER.length - TAIL.length - 64;
  const body = unit.repeat(Math.max(1, Math.floor(room / Buffer.byteLength(unit))));
  return `${FRONTMATTER}A finding about request handling.\n\n${body}${TAIL}`;
}
