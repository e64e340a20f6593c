/**
 * Which hosts may appear in entries, and which dotted words are hostnames at all.
 *
 * Allowed without configuration: reserved example names (RFC 2606/6761: `example.com|net|org`
 * and their subdomains, `*.example`, `*.test`, `*.invalid`, `*.localhost`, `localhost`) and a
 * short list of public documentation hosts (MDN, docs.rs, the language and standards sites…).
 * `github.com` / `gitlab.com` are deliberately NOT built in: their paths name organisations and
 * repositories. Add them (or your own hosts) with `sanitize.allowHosts`.
 */
import { CairnError } from "../../errors.js";

/** Suffixes that only ever name private networks: flagged whenever they end a dotted word. */
export const INTERNAL_TLDS = new Set(["internal", "corp", "local", "lan", "intranet", "localdomain", "intra", "home.arpa"]);

/** TLDs that rarely end code identifiers or file names: a two-label word with one of these is a host. */
export const COMMON_TLDS = new Set([
  "com", "net", "org", "edu", "gov", "mil", "biz", "eu", "uk", "de", "fr", "nl", "ch",
  "se", "ca", "au", "jp", "cn", "ru", "br", "es", "nz", "za", "kr", "tw", "hk", "sg", "dk", "fi", "ie",
  "cz", "hu", "ro", "gr", "tr", "il", "ua", "mx", "asia", "online", "tech", "xyz",
]);

/**
 * TLDs that also end code (`java.io`, `this.app`, `log.info`, `google.cloud`): a word with
 * three or more labels (`api.acme.dev`) is a host; a two-label word (`acme.io`) only when it
 * is written as prose — not in inline code, not on an import line, not after a code receiver.
 */
export const AMBIGUOUS_TLDS = new Set([
  "io", "ai", "co", "app", "dev", "cloud", "me", "tv", "gg", "ly", "page", "site", "store", "shop", "blog",
  "systems", "network", "team",
]);

/** First labels that always mark a dotted word as code (`this.local`, `req.internal`), whatever follows. */
export const LANGUAGE_RECEIVERS = new Set([
  "this", "self", "super", "window", "document", "globalthis", "process", "module", "exports", "ctx",
  "req", "res", "java", "javax", "std", "threading", "chrome", "browser",
]);

/** First labels that mark a two-label word with an ambiguous TLD as code (`java.io`, `config.dev`), not a host. */
export const CODE_RECEIVERS = new Set([
  "this", "self", "super", "that", "ctx", "context", "req", "request", "res", "response", "app", "server",
  "client", "config", "cfg", "conf", "opts", "options", "settings", "env", "window", "document",
  "globalthis", "global", "process", "module", "exports", "java", "javax", "kotlin", "scala", "std", "os",
  "sys", "io", "fs", "path", "http", "https", "net", "util", "utils", "console", "event", "e", "err",
  "error", "state", "props", "data", "obj", "item", "node", "socket", "threading", "thread", "django",
  "flask", "spring", "android", "vue", "angular", "react", "next", "nuxt", "express", "fastify", "koa",
  "ns", "pkg", "lib", "mod", "cls", "args", "argv", "params", "query", "body", "headers", "cookies",
  "session", "user", "auth", "db", "model", "models", "store", "router", "route", "routes", "api", "log",
  "logger", "logging", "np", "numpy", "pd", "torch", "tf", "google", "firebase", "aws", "azure",
]);

const BUILTIN_EXACT = [
  "localhost", "developer.mozilla.org", "docs.rs", "crates.io", "doc.rust-lang.org", "rust-lang.org",
  "www.rust-lang.org", "pkg.go.dev", "go.dev", "golang.org", "docs.python.org", "peps.python.org",
  "python.org", "www.python.org", "pypi.org", "nodejs.org", "www.typescriptlang.org", "typescriptlang.org",
  "www.npmjs.com", "npmjs.com", "docs.npmjs.com", "owasp.org", "cheatsheetseries.owasp.org", "cwe.mitre.org",
  "cve.mitre.org", "nvd.nist.gov", "datatracker.ietf.org", "www.rfc-editor.org", "rfc-editor.org",
  "tools.ietf.org", "www.w3.org", "w3.org", "html.spec.whatwg.org", "url.spec.whatwg.org",
  "fetch.spec.whatwg.org", "tc39.es", "learn.microsoft.com", "docs.microsoft.com", "docs.oracle.com",
  "docs.github.com", "docs.gitlab.com", "docs.aws.amazon.com", "cloud.google.com", "kubernetes.io",
  "docs.docker.com", "www.postgresql.org", "postgresql.org", "sqlite.org", "www.sqlite.org",
  "dev.mysql.com", "redis.io", "en.wikipedia.org", "stackoverflow.com", "semver.org", "json-schema.org",
  "yaml.org", "spec.openapis.org", "unicode.org", "www.unicode.org", "react.dev", "vitest.dev",
  "eslint.org", "git-scm.com", "man7.org", "en.cppreference.com", "cppreference.com", "docs.oracle.com",
  "docs.spring.io", "docs.djangoproject.com", "guides.rubyonrails.org", "ruby-doc.org", "php.net",
  "www.php.net", "asp.net", "kotlinlang.org", "docs.swift.org", "llvm.org", "gcc.gnu.org", "www.gnu.org",
];
const BUILTIN_SUFFIXES = ["example.com", "example.net", "example.org", "example", "test", "invalid", "localhost"];

/** Reserved example domains: the only domains e-mail addresses may use. */
export function isReservedExampleHost(host: string): boolean {
  const h = normaliseHost(host);
  return BUILTIN_SUFFIXES.some((suffix) => h === suffix || h.endsWith(`.${suffix}`));
}

export function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

/** A compiled host allowlist: `allows("api.docs.rs")`. */
export type HostPolicy = { allows: (host: string) => boolean };

/**
 * Compile `allowHosts` (exact `docs.rs` or wildcard `*.example.com`; a wildcard matches
 * subdomains, not the apex) together with the built-in list. A scheme, path or port written
 * by mistake (`https://docs.rs/x`) is ignored; any other `*` is a configuration error.
 */
export function compileHostPolicy(allowHosts: readonly string[] = []): HostPolicy {
  const exact = new Set(BUILTIN_EXACT);
  const wildcard = new Set<string>();
  for (const [i, raw] of allowHosts.entries()) {
    const host = normaliseHost(raw.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/[/:?#].*$/, ""));
    const bare = host.startsWith("*.") ? host.slice(2) : host;
    if (bare.length === 0 || bare.includes("*") || /\s/.test(bare)) {
      throw new CairnError(
        "CONFIG",
        `sanitize.allowHosts.${i} is not a host name or wildcard (got "${raw}"); expected e.g. "docs.rs" or "*.example.com".`,
      );
    }
    // A wildcard over a whole top-level domain (`*.com`, `*.internal`, `*.corp`) would let every name under it through,
    // the internal ones README promises are always flagged included: hosts are allowed per domain, or one by one.
    if (host.startsWith("*.") && (!bare.includes(".") || INTERNAL_TLDS.has(bare))) {
      throw new CairnError(
        "CONFIG",
        `sanitize.allowHosts.${i} covers a whole top-level domain (got "${raw}"): every ${INTERNAL_TLDS.has(bare) ? "internal " : ""}host under it would pass; expected a domain such as "*.example.com", or the hosts one by one (e.g. "docs.${bare}")`,
      );
    }
    (host.startsWith("*.") ? wildcard : exact).add(bare);
  }
  return {
    allows(hostName) {
      const host = normaliseHost(hostName);
      if (exact.has(host) || isReservedExampleHost(host)) return true;
      for (let dot = host.indexOf("."); dot !== -1; dot = host.indexOf(".", dot + 1)) {
        if (wildcard.has(host.slice(dot + 1))) return true;
      }
      return false;
    },
  };
}

export type HostKind = "internal" | "common" | "ambiguous";

/** Classify a dotted word by its last label(s); undefined when it is not a host name at all. */
export function hostKind(host: string): HostKind | undefined {
  const h = host.toLowerCase();
  const tld = h.slice(h.lastIndexOf(".") + 1);
  if (INTERNAL_TLDS.has(tld) || h.endsWith(".home.arpa")) return "internal";
  if (COMMON_TLDS.has(tld)) return "common";
  if (AMBIGUOUS_TLDS.has(tld)) return "ambiguous";
  return undefined;
}
