import { describe, expect, it } from "vitest";
import { createSanitizer, sanitizeText } from "../../../src/check/sanitize/index.js";
import { isCairnError } from "../../../src/errors.js";
import { hits, rules } from "./helpers.js";

describe("ip-address", () => {
  it.each([
    ["private IPv4 with port", "connect to 10.12.3.4:8080 first", "ip-address@1:12"],
    ["home network", "router at 192.168.1.20", "ip-address@1:11"],
    ["172.16/12", "x 172.16.5.4", "ip-address@1:3"],
    ["public IPv4", "52.1.2.3 answered", "ip-address@1:1"],
    ["assignment", "HOST=10.1.2.3", "ip-address@1:6"],
    ["non-canonical CIDR", "allow 10.20.0.0/16 only", "ip-address@1:7"],
    ["IPv4 in a URL", "GET http://10.1.2.3/admin", "ip-address@1:12"],
    ["compressed IPv6", "resolved to 2607:f8b0:4005:80a::200e today", "ip-address@1:13"],
    ["link-local IPv6", "fe80::1ab:2cd on eth0", "ip-address@1:1"],
    ["full IPv6", "2001:0db9:85a3:0000:0000:8a2e:0370:7334", "ip-address@1:1"],
    ["IPv6 URL literal", "http://[2a00:1450::1]:443/", "ip-address@1:9"],
    ["IPv4-mapped IPv6 reported once", "peer ::ffff:10.1.2.3", "ip-address@1:6"],
    ["IPv6 at a sentence end", "it resolved to fd12:3456::7.", "ip-address@1:16"],
    ["IPv6 network that is not canonical", "route fd12:3456::/48 internally", "ip-address@1:7"],
  ])("%s", (_name, text, expected) => {
    expect(hits(text)).toEqual([expected]);
  });

  it.each([
    ["semver", "upgrade to 1.2.3 now"],
    ["v-prefixed four-part version", "v1.2.3.4"],
    ["version word", "version 1.2.3.4 fixed it"],
    ["npm spec", "lodash@4.17.21 and pkg@1.2.3.4"],
    ["caret range", "^1.2.3.4"],
    ["prerelease", "1.2.3.4-beta.1"],
    ["five-part", "1.2.3.4.5"],
    ["octet > 255", "256.1.1.1"],
    ["leading zeros", "01.02.03.04"],
    ["date", "2024.01.02"],
    ["loopback", "listen on 127.0.0.1:3000"],
    ["unspecified", "bind 0.0.0.0"],
    ["netmask", "mask 255.255.255.0"],
    ["metadata endpoint", "block 169.254.169.254 in SSRF filters"],
    ["documentation range", "e.g. 192.0.2.10 or 203.0.113.5"],
    ["canonical private block", "deny 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16"],
    ["public resolver", "do not hard-code 8.8.8.8"],
    ["IPv6 loopback", "::1 and [::1]:8080"],
    ["IPv6 documentation", "2001:db8::1 and 2001:db8::/32"],
    ["canonical IPv6 blocks", "block fc00::/7 and fe80::/10"],
    ["Rust path", "use std::io::Result;"],
    ["C++ scope", "std::vector<int>::iterator it; a::b; Foo::bar();"],
    ["hex-only scope", "cafe::dead and add::bad"],
    ["time", "at 12:34:56"],
    ["MAC address", "00:1a:2b:3c:4d:5e"],
    ["digest", "sha256:abcdef0123"],
    ["ratio", "16:9"],
  ])("not an address: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });
});

describe("email", () => {
  it.each([
    ["plain", "mail alice.smith@acme-corp.com", "email@1:6"],
    ["plus address", "ops+alerts@acme.io paged", "email@1:1"],
    ["in angle brackets", "From: <bob@acme.co.uk>", "email@1:8"],
  ])("%s", (_name, text, expected) => {
    expect(hits(text)).toEqual([expected]);
  });

  it("does not show the local part", () => {
    const [d] = sanitizeText("alice.smith@acme-corp.com", "x.md");
    expect(d?.message).not.toContain("alice");
    expect(d?.message).toContain("user@example.com");
  });

  it.each([
    ["example domain", "user@example.com and a@b.example.org"],
    ["reserved TLD", "dev@service.test"],
    ["retina image", "icon@2x.png"],
    ["scoped package", "@types/node and @scope/pkg@1.2.3"],
    ["action ref", "uses: actions/checkout@v4"],
    ["no dot", "user@localhost and foo@bar"],
    ["decorator", "@Injectable() class A {}"],
  ])("not an address: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });

  it("reports the host of an ssh git remote instead of an e-mail", () => {
    expect(hits("git@github.com:acme/repo.git")).toEqual(["host-not-allowed@1:5"]);
  });
});

describe("host-not-allowed", () => {
  it.each([
    ["bare host, ambiguous TLD with 3 labels", "call api.acme.io first", "host-not-allowed@1:6"],
    ["bare .com", "see acme.com.", "host-not-allowed@1:5"],
    ["capitalised .com at sentence start", "Acme.com owns it", "host-not-allowed@1:1"],
    ["two-label .io in prose", "hosted on acme.io", "host-not-allowed@1:11"],
    ["internal", "grafana.acme.internal", "host-not-allowed@1:1"],
    ["corp", "db01.corp", "host-not-allowed@1:1"],
    ["mDNS", "printer.local", "host-not-allowed@1:1"],
    ["lan", "nas.lan", "host-not-allowed@1:1"],
    ["ccTLD", "www.acme.de", "host-not-allowed@1:1"],
    ["URL host", "https://jira.acme.com/browse/X-1", "host-not-allowed@1:9"],
    ["github is not built in", "https://github.com/acme/private-repo/issues/1", "host-not-allowed@1:9"],
    ["single-label URL host", "http://jenkins-prod-03:8080/job/x", "host-not-allowed@1:8"],
    ["bucket", "s3://acme-prod-backups/db.sql", "host-not-allowed@1:6"],
    ["websocket", "ws://chat.acme.dev/socket", "host-not-allowed@1:6"],
  ])("%s", (_name, text, expected) => {
    expect(hits(text)).toEqual([expected]);
  });

  it.each([
    ["MDN", "https://developer.mozilla.org/en-US/docs/Web/HTTP"],
    ["docs.rs bare", "see docs.rs/tokio"],
    ["RFC editor", "https://www.rfc-editor.org/rfc/rfc9110"],
    ["example subdomain", "https://api.example.com/v1/users"],
    ["localhost", "http://localhost:3000/health"],
    ["reserved TLDs", "https://svc.test/ and foo.example and x.invalid"],
    ["generic single-label", "redis://redis:6379/0 and http://db:5432 and http://api/"],
    ["URL path is not a file path", "https://example.com/home/alice/x"],
    ["templated host", "https://{tenant}.example.com/ and https://${HOST}/x and https://<host>/"],
    ["scheme only", "use https:// URLs only"],
  ])("allowed: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });

  it.each([
    ["source files", "auth.go index.ts package.json README.md setup.py main.rs libfoo.so deploy.sh"],
    ["config files", "tsconfig.app.json Dockerfile.dev docker-compose.dev.yml .env.local next.config.js"],
    ["members", "Server.listen a.b.c this.app req.app.locals os.path.join"],
    ["java", "java.io.File and java.io and com.acme.payments.app"],
    ["receivers", "log.info config.dev socket.io threading.local chrome.storage.local"],
    ["imports", "from google.cloud import storage"],
    ["inline code", "call `acme.io` helper"],
    ["abbreviations", "e.g. this, i.e. that, etc."],
    ["method call", "client.co(x) and x.dev = true"],
    ["anchor", "Evidence: middleware/auth.go:47-52, handleRequest()"],
  ])("not a host: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });
});

describe("allowHosts", () => {
  const options = { allowHosts: ["*.acme.dev", "jira.acme.com", "https://wiki.acme.org/some/page", "GitHub.com"] };

  it("wildcards match subdomains at any depth but not the apex", () => {
    expect(rules("api.acme.dev and x.y.acme.dev", options)).toEqual([]);
    expect(hits("acme.dev hosts it", options)).toEqual(["host-not-allowed@1:1"]);
  });

  it("exact entries match case-insensitively; scheme and path are ignored", () => {
    expect(rules("https://JIRA.Acme.com/browse/X-1 and wiki.acme.org", options)).toEqual([]);
    expect(rules("git@github.com:acme/repo.git https://github.com/a/b", options)).toEqual([]);
    expect(hits("jira2.acme.com", options)).toEqual(["host-not-allowed@1:1"]);
  });

  it("can allow an IP address explicitly", () => {
    expect(rules("10.1.2.3", { allowHosts: ["10.1.2.3"] })).toEqual([]);
  });

  it("rejects malformed entries with a configuration error", () => {
    let caught: unknown;
    try {
      createSanitizer({ allowHosts: ["docs.*.rs"] });
    } catch (error) {
      caught = error;
    }
    expect(isCairnError(caught) && caught.code).toBe("CONFIG");
    expect(String((caught as Error).message)).toContain("allowHosts.0");
  });

  it("refuses a wildcard over a whole top-level domain; an internal host named one by one is allowed", () => {
    // Before: "*.internal" let every internal name through, although internal names are flagged always.
    for (const wide of ["*.internal", "*.corp", "*.com"]) {
      let caught: unknown;
      try {
        createSanitizer({ allowHosts: ["docs.rs", wide] });
      } catch (error) {
        caught = error;
      }
      expect(isCairnError(caught) && caught.code).toBe("CONFIG");
      expect(String((caught as Error).message)).toMatch(/allowHosts\.1 covers a whole top-level domain/);
    }
    expect(rules("see wiki.acme.corp and db.acme.corp", { allowHosts: ["wiki.acme.corp"] })).toEqual(["host-not-allowed"]);
  });
});

describe("url-credentials", () => {
  it("reports the credentials and the internal host separately", () => {
    expect(hits("postgres://admin:s3cr3tPass@db.acme.internal:5432/app")).toEqual(["url-credentials@1:12", "host-not-allowed@1:29"]);
  });

  it("never shows the password or the user", () => {
    const [d] = sanitizeText("amqp://svc_user:Zx9-very-secret@localhost/", "x.md");
    expect(d?.rule).toBe("url-credentials");
    expect(d?.message).not.toContain("Zx9-very-secret");
    expect(d?.message).not.toContain("svc_user");
  });
});
