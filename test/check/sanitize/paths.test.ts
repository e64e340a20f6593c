import { describe, expect, it } from "vitest";
import { sanitizeText } from "../../../src/check/sanitize/index.js";
import { hits, rules } from "./helpers.js";

describe("absolute-path", () => {
  it.each([
    ["Linux home", "see /home/alice/proj/src/a.ts", "absolute-path@1:5"],
    ["macOS home", "(/Users/bob/work/app)", "absolute-path@1:2"],
    ["etc config", "edit /etc/nginx/sites-enabled/acme.conf", "absolute-path@1:6"],
    ["var", "logs in /var/log/acme/app.log:12", "absolute-path@1:9"],
    ["opt", "`/opt/acme/bin/run`", "absolute-path@1:2"],
    ["tmp file", "writes /tmp/build-123/out.json", "absolute-path@1:8"],
    ["Windows backslash", "C:\\Users\\bob\\repo\\a.ts", "absolute-path@1:1"],
    ["Windows forward slash", "at D:/work/acme/a.ts", "absolute-path@1:4"],
    ["UNC share", "copy to \\\\fileserver\\builds", "absolute-path@1:9"],
    ["home-relative", "clone into ~/work/acme-api", "absolute-path@1:12"],
    ["other user's home", "~alice/notes.txt", "absolute-path@1:1"],
    ["file URL", "open file:///home/alice/x.txt", "absolute-path@1:6"],
  ])("%s", (_name, text, expected) => {
    expect(hits(text)).toEqual([expected]);
  });

  it("quotes the path and says what to write instead", () => {
    const [d] = sanitizeText("see /home/alice/proj", "x.md");
    expect(d?.message).toContain("/home/alice/proj");
    expect(d?.message).toContain("repo-relative path");
  });

  it.each([
    ["API routes", "GET /api/v1/users/:id and POST /login and /healthz"],
    ["SPA-ish routes", "redirect to /dashboard/settings"],
    ["repo-rooted", "/src/a.ts and src/middleware/auth.go:47"],
    ["bare roots", "writes to /tmp and reads /etc, /var/log or /home"],
    ["well-known files", "path traversal to /etc/passwd or /etc/hosts; read /proc/self/environ and /dev/urandom"],
    ["shebang", "#!/usr/bin/env node and /bin/sh -c"],
    ["system dirs", "/usr/local/bin/node and /usr/lib/x86_64-linux-gnu and /etc/ssl/certs/ca.pem"],
    ["k8s service account", "/var/run/secrets/kubernetes.io/serviceaccount/token"],
    ["templated home", "/home/$USER/.cache and /home/<user>/x and /Users/you/project and /home/user/.ssh"],
    ["dotfiles", "~/.ssh/config, ~/.npmrc and ~/.aws/credentials"],
    ["approximation", "~50/s and ~/ alone"],
    ["relative", "./etc/app.conf and lib/etc/x"],
    ["URL path", "https://example.com/home/alice and https://example.com/etc/passwd"],
    ["Windows system", "C:\\Windows\\System32\\drivers\\etc\\hosts and %USERPROFILE%\\x and C:\\Users\\<you>\\x"],
    ["regex escapes", "match \\\\d+\\\\s and a\\\\b"],
    ["and/or", "and/or etc/var"],
  ])("allowed: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });
});

describe("path-outside-repo", () => {
  it.each([
    ["sibling repository", "copied from ../other-repo/src/x.ts", "path-outside-repo@1:13"],
    ["climbing to etc", "../../etc/passwd", "path-outside-repo@1:1"],
    ["climbing after a descent", "src/../../shared/x.ts", "path-outside-repo@1:1"],
    ["Windows separators", "..\\secrets\\prod.env", "path-outside-repo@1:1"],
    ["quoted", 'read("../../config/prod.json")', "path-outside-repo@1:7"],
  ])("%s", (_name, text, expected) => {
    expect(hits(text)).toEqual([expected]);
  });

  it("resolves markdown link targets against the entry's folder", () => {
    expect(rules("[a](../src/a.ts)")).toEqual([]);
    expect(hits("[a](../../other/a.ts)")).toEqual(["path-outside-repo@1:5"]);
    expect(sanitizeText("[a](../src/a.ts)", "<finding>").map((d) => d.rule)).toEqual(["path-outside-repo"]);
  });

  it.each([
    ["staying inside", "src/a/../b.ts and ./x/../y"],
    ["climbing without naming", "cd ../.. then build"],
    ["relative import", 'import { x } from "../lib/x.js"; const y = require("../y");'],
    ["include", '#include "../common/util.h"'],
    ["ellipsis and ranges", "wait... then 0..n and main..feature and ...args"],
    ["URL", "https://example.com/a/../b"],
  ])("allowed: %s", (_name, text) => {
    expect(rules(text)).toEqual([]);
  });
});
