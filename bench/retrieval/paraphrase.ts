/**
 * A small paraphrase set written for issue 10 (not from a shared set): twelve code-review findings
 * and, for each, a review question that says the same thing in other words — the way a reviewer
 * or a PR summary describes a problem before anyone has named it. Content words shared between a
 * query and its entry were avoided on purpose (at most one, e.g. "context"); the first pair is the
 * issue's reproduction. Relevance: each query has exactly its own entry.
 */
import type { Dataset } from "./dataset.js";

const PAIRS: Array<[title: string, entry: string, query: string]> = [
  ["Context cancellation swallowed", "Auth middleware swallows context cancellation errors: check ctx.Err() after upstream calls so a cancelled request stops early.", "deadline, timeout, context expiry — the caller gives up waiting"],
  ["Retries without backoff", "Retry loops without exponential backoff and jitter hammer a failing dependency and prolong the outage.", "when the downstream service is flaky we immediately try again over and over"],
  ["Secrets in logs", "Request logging writes authorization headers and API tokens to the log files in plain text.", "credentials end up readable by anyone who can see the diagnostics output"],
  ["N+1 queries", "Loading each order's customer inside a loop issues one database query per row (N+1); batch or join instead.", "the page gets slower with every extra item because of a lookup per element"],
  ["Unbounded cache", "The in-process cache has no size limit or eviction, so memory grows until the process is killed.", "RAM usage climbs forever and the container is OOM-terminated after a few days"],
  ["Timezone-naive dates", "Dates are parsed without a timezone and compared with UTC timestamps, shifting deadlines by hours.", "things scheduled for midnight happen at the wrong hour for users abroad"],
  ["Float money", "Monetary amounts are stored as binary floating point, so sums drift by fractions of a cent.", "invoice totals are off by a penny after adding many prices"],
  ["Missing input validation", "User-supplied identifiers reach the SQL string unescaped; use parameterised queries.", "someone could craft a name that rewrites the statement sent to the database"],
  ["Race on shared counter", "The shared counter is incremented from several goroutines without a mutex or atomic operation.", "two workers bump the same number at once and updates get lost"],
  ["Resource leak on error path", "File handles opened before an early return on error are never closed.", "descriptors pile up when the function bails out halfway"],
  ["Blocking call on event loop", "A synchronous filesystem call inside the request handler blocks the event loop for every client.", "one slow disk read freezes all other users' requests"],
  ["Unpinned dependency versions", "Dependencies are declared with open version ranges, so a fresh install can pull a breaking release.", "a new machine builds something different from what we tested last week"],
];

/** The paraphrase set as a benchmark Dataset (ids p1..p12 for both sides; odd ids tune, even are held out). */
export function paraphraseSet(): Dataset {
  const docs = PAIRS.map(([title, text], i) => ({ id: `e${i + 1}`, title, text }));
  const queries = PAIRS.map(([, , text], i) => ({ id: `p${i + 1}`, text, inItemText: false }));
  const qrels = new Map(PAIRS.map((_, i) => [`p${i + 1}`, new Map([[`e${i + 1}`, 1]])]));
  return { name: "paraphrase", docs, queries, qrels, headline: "all", subsets: [{ name: "all", includes: () => true }] };
}
