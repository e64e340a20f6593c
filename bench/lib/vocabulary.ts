/** Word lists for generated entries: review domains with their subjects, problems, advice and verify steps. */

export type Domain = {
  /** Agent name that owns the domain (frontmatter `agents`). */
  agent: string;
  tags: string[];
  /** Noun phrases: what the finding is about. */
  subjects: string[];
  /** Verb phrases that complete "<subject> ...". */
  problems: string[];
  /** Clauses that complete "check that ...". */
  advice: string[];
};

export const DOMAINS: Domain[] = [
  {
    agent: "security",
    tags: ["security", "auth", "input-validation", "secrets"],
    subjects: ["session cookie handling", "JWT verification", "the SQL query builder", "file upload handlers", "the password reset flow", "the CORS middleware", "redirect handling", "template rendering", "webhook signature checks", "API key comparison", "the XML parser setup", "shell command construction"],
    problems: ["trusts a caller-supplied value without validating it", "skips the check when the input is empty", "compares secrets with a non-constant-time equality", "logs sensitive fields at debug level", "builds strings by concatenation instead of parameters", "fails open when the config value is missing", "accepts unsigned or expired tokens", "follows user-controlled paths without normalising them", "catches and ignores the verification error", "reuses a static nonce across requests"],
    advice: ["every branch validates before use", "the comparison is constant-time", "errors reject the request", "the value is escaped at the sink", "defaults deny access"],
  },
  {
    agent: "performance",
    tags: ["performance", "latency", "memory", "database"],
    subjects: ["the report exporter", "pagination in list endpoints", "the search indexer", "image thumbnail generation", "the cache warmer", "bulk import jobs", "the metrics aggregator", "the GraphQL resolvers", "log shipping", "the notification fan-out", "CSV parsing", "the session store"],
    problems: ["issues one query per row instead of batching", "loads the whole table into memory before filtering", "recomputes the same value inside a hot loop", "serialises work that could run concurrently", "holds a lock across network calls", "allocates a new buffer for every chunk", "never evicts entries from an unbounded map", "sorts the full list to take the first few items", "retries without backoff and amplifies load", "re-parses configuration on every request"],
    advice: ["queries are batched", "memory stays bounded for large inputs", "the loop body is hoisted", "independent calls run concurrently", "the cache has a size limit"],
  },
  {
    agent: "correctness",
    tags: ["correctness", "edge-cases", "dates", "errors"],
    subjects: ["date range filters", "currency rounding", "the retry wrapper", "pagination cursors", "timezone conversion", "the diff renderer", "optional chaining in config loaders", "enum parsing", "the merge of partial updates", "string truncation", "array deduplication", "the state machine for orders"],
    problems: ["drops the last element on an off-by-one bound", "treats zero as a missing value", "mixes local time with UTC", "swallows the original error and returns a default", "mutates a shared default object", "compares floats for exact equality", "assumes the list is sorted", "loses precision converting to a number", "cuts multi-byte characters in half", "accepts transitions the spec forbids"],
    advice: ["boundaries are inclusive as documented", "zero and undefined are distinguished", "dates are normalised to UTC", "the original error is rethrown with cause", "inputs are copied before mutation"],
  },
  {
    agent: "concurrency",
    tags: ["concurrency", "async", "race-conditions"],
    subjects: ["the job scheduler", "the connection pool", "file write paths", "the rate limiter", "event listeners", "the worker queue", "the lock helper", "background refresh timers", "stream consumers", "the upload resumer", "the leader election loop", "cache invalidation"],
    problems: ["reads and writes shared state without a lock", "forgets to await a promise and loses its rejection", "registers a listener on every call and leaks it", "checks then acts on a file that can change in between", "starts a timer that is never cleared on shutdown", "releases the lock before the write is flushed", "processes the same message twice after a reconnect", "deadlocks when two callers acquire in opposite order", "resolves before the underlying stream has ended", "cancels work without propagating the signal"],
    advice: ["each promise is awaited or handled", "listeners are removed on close", "writes are atomic", "locks are taken in one global order", "shutdown drains pending work"],
  },
  {
    agent: "reliability",
    tags: ["reliability", "resilience", "observability"],
    subjects: ["the HTTP client wrapper", "database migrations", "the health check endpoint", "feature flag evaluation", "the payment callback handler", "queue consumers", "configuration reloads", "the crash reporter", "startup probes", "the circuit breaker", "batch retries", "the email sender"],
    problems: ["has no timeout and hangs on a slow dependency", "reports healthy while a dependency is down", "cannot be rerun after a partial failure", "drops messages when the handler throws", "turns every error into a 500 without context", "keeps retrying a request that can never succeed", "loses the correlation id across async boundaries", "starts serving before migrations finished", "falls back silently and hides the outage", "writes partial state when interrupted"],
    advice: ["every outbound call has a deadline", "operations are idempotent", "failures are logged with context", "retries stop on permanent errors", "readiness waits for dependencies"],
  },
  {
    agent: "api",
    tags: ["api", "compatibility", "contracts"],
    subjects: ["the public REST handlers", "response serialisation", "the SDK error types", "query parameter parsing", "versioned routes", "the OpenAPI schema", "webhook payloads", "list filters", "field renames", "the CLI flag parser", "default values", "deprecation warnings"],
    problems: ["changes a field type without a version bump", "returns different shapes for empty and non-empty results", "ignores unknown parameters instead of rejecting them", "exposes internal error messages to clients", "breaks clients that rely on field order", "documents a default that the code does not apply", "accepts both spellings but only returns one", "removes a flag without a deprecation period", "paginates inconsistently across endpoints", "leaks null where the schema promises a string"],
    advice: ["the schema and the code agree", "breaking changes bump the version", "errors use the documented shape", "unknown input is rejected", "defaults match the docs"],
  },
];

/** Source areas and module names for the generated repository tree. */
export const AREAS = ["auth", "billing", "search", "upload", "cache", "queue", "reports", "users", "orders", "payments", "notifications", "config", "metrics", "storage", "sessions", "webhooks", "exports", "imports", "admin", "gateway"];
export const MODULES = ["handler", "client", "store", "middleware", "parser", "worker", "router", "service"];
export const VERBS = ["validate", "load", "parse", "build", "resolve", "apply", "flush", "fetch", "render", "merge", "refresh", "encode"];
export const NOUNS = ["Session", "Token", "Request", "Batch", "Cursor", "Config", "Payload", "Record", "Header", "Range", "Report", "Event"];

/** Notes after an anchor: what the cited code does wrong. */
export const NOTES = ["the value is used before the check", "the error is discarded", "no limit on the loop", "called once per item", "the lock is released early", "the timeout is missing", "the field is renamed here", "the default differs from the docs"];
