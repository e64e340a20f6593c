/** Ordinary code-review entries must come out clean: the false-positive guard for every rule. */
import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../../src/check/sanitize/index.js";

const ENTRIES: Record<string, string> = {
  "go-ctx": `---
lastConfirmed: 2026-02-12
provenance: independent
---
Auth middleware often swallows context cancellation errors — check for
ctx.Err() after upstream calls in middleware/*.go.

Evidence: middleware/auth.go:47-52, handleRequest() — context.Err() not
checked after upstream call.
Verify: grep for ctx.Err() after http.Do() calls in middleware/*.go.
`,
  "ts-sql": `---
lastConfirmed: 2026-01-30
provenance: independent
title: Raw SQL built with template literals
tags: [security, sql]
agents: [security]
status: verified
confidence: 0.8
---
Queries built with template literals in \`src/db/*.ts\` bypass the parameterised
\`db.query(sql, params)\` helper; look for \`\${\` inside SQL strings.

Evidence: src/db/users.ts:88-94, findUserByEmail() — \`SELECT * FROM users WHERE email = '\${email}'\`.

Verify:
- grep -rn "SELECT .*\\\${" src/db
- confirm each hit passes values through \`params\` (see https://owasp.org/www-community/attacks/SQL_Injection).
`,
  "py-settings": `---
lastConfirmed: 2025-12-01
provenance: primed
---
Settings objects that hold API keys are logged whole by \`logger.debug(settings)\` in
app/settings.py; the api_key is read from \`os.environ["STRIPE_KEY"]\` but ends up in logs.

Evidence: app/settings.py:40, Settings.__repr__ — returns every field, token included.

\`\`\`python
class Settings(BaseModel):
    api_key: str = os.environ["STRIPE_KEY"]
    password: SecretStr
    timeout: float = 1.5
\`\`\`

Verify: check that \`__repr__\` masks \`api_key\` and \`password\`; run \`pytest tests/test_settings.py -k repr\`.
`,
  "rust-mutex": `---
lastConfirmed: 2026-02-01
provenance: independent
---
A std::sync::Mutex guard held across an .await in src/server/handler.rs blocks the
executor; prefer tokio::sync::Mutex or drop the guard first
(https://docs.rs/tokio/latest/tokio/sync/struct.Mutex.html).

Evidence: src/server/handler.rs:120-131, Handler::serve() — \`let guard = state.lock().unwrap();\` then \`.await\`.
Verify: search for \`.lock()\` followed by \`.await\` in the same block; \`cargo clippy -- -W clippy::await_holding_lock\`.
`,
  "k8s-probe": `---
lastConfirmed: 2026-02-10
provenance: independent
---
Readiness probes that hit /healthz on the app port pass before migrations finish.

Evidence: deploy/k8s/api.yaml:30-41 — \`httpGet: { path: /healthz, port: 8080 }\`; image nginx:1.25.3.

\`\`\`yaml
env:
  - name: DB_PASSWORD
    valueFrom:
      secretKeyRef: { name: db, key: password }
readinessProbe:
  httpGet:
    path: /healthz
    port: 8080
\`\`\`

Verify: confirm the probe waits for \`/readyz\`, which checks the migration table; bind on 0.0.0.0:8080 only inside the pod.
`,
  "frontend-fetch": `---
lastConfirmed: 2026-02-11
provenance: independent
---
Session tokens stored with localStorage.setItem("token", jwt) are readable by any script;
use an httpOnly cookie set by res.cookie("session", id, { httpOnly: true, secure: true }).

Evidence: web/src/auth/session.ts:15, saveSession() — fetch("/api/session", { credentials: "include" }).
Verify: grep for localStorage.setItem in web/src; check next.config.js sets the CSP from process.env.CSP_POLICY.
`,
  "java-client": `---
lastConfirmed: 2026-02-03
provenance: independent
---
HttpClient.newHttpClient() without a timeout in com.example.billing.InvoiceClient hangs
forever when the upstream stalls (java.net.http has no default timeout).

Evidence: billing/src/main/java/com/example/billing/InvoiceClient.java:52, send().
Verify: check every HttpRequest.newBuilder() sets .timeout(Duration.ofSeconds(n)); see java.io and java.util.concurrent usage.
`,
  "llm-prompt": `---
lastConfirmed: 2026-02-09
provenance: independent
tags: [llm, prompt-injection]
---
User-supplied text concatenated into the system prompt in src/llm/prompt.ts lets attackers
override instructions; the system prompt is built without delimiters or escaping.

Evidence: src/llm/prompt.ts:22-30, buildPrompt() — \`system + "\\n" + userText\`.
Verify: check user text is passed as a separate user message, never appended to the system prompt.
`,
  "numbers-and-versions": `---
lastConfirmed: 2026-02-12
provenance: independent
---
Retries without jitter (3 attempts, 1.5s apart) stampede after deploys of v2.3.1.4;
p99 latency goes from 120ms to 2.5s, ratio 16:9, at 12:30:00 UTC; lodash@4.17.21 and node 20.19.0.

Evidence: src/retry/backoff.ts:10-18, retry() — fixed delay of 1500 ms.
Verify: check \`retry()\` adds random jitter; compare with https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Retry-After.
`,
  "shell-and-paths": `---
lastConfirmed: 2026-02-12
provenance: independent
---
Scripts in scripts/*.sh write to predictable names under /tmp and run \`cd ../..\` before
deploy.sh, so a relative source path breaks when called from another folder.

Evidence: scripts/deploy.sh:3-9 — \`#!/usr/bin/env bash\`, \`cd "$(dirname "$0")"/../..\`.
Verify: check scripts use \`mktemp -d\` and resolve paths from \`$(git rev-parse --show-toplevel)\`; keys live in ~/.ssh/config.
`,
};

describe("realistic entries produce no diagnostics", () => {
  it.each(Object.entries(ENTRIES))("%s", (name, text) => {
    expect(sanitizeText(text, `knowledge/${name}.md`)).toEqual([]);
  });

  it.each(Object.entries(ENTRIES))("%s (CRLF)", (name, text) => {
    expect(sanitizeText(text.replace(/\n/g, "\r\n"), `knowledge/${name}.md`)).toEqual([]);
  });
});
