/**
 * Which names and addresses are this machine's loopback, however they are spelt: what decides whether the HTTP
 * server guards against DNS rebinding (bound to loopback) and which Host and Origin headers it then answers.
 */

/** `host` (a name, an IPv4 address in any form, an IPv6 address with or without brackets, maybe `:port`) as a URL spells it, lower-cased; undefined when it is none. */
function canonical(host: string, withPort: boolean): string | undefined {
  const bracketed = !withPort && host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  try {
    const url = new URL(`http://${bracketed}/`);
    // A Host header is a host and an optional port; anything else (user info, a path) is not one.
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) return undefined;
    return url.hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** True for a loopback host: `localhost`, any address of 127.0.0.0/8 (`127.0.0.2`, `127.1`), `::1` in any spelling, `::ffff:127.x.y.z`. */
function isLoopbackName(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "localhost.") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  // The URL parser has already written IPv6 in its shortest form (0:0:0:0:0:0:0:1 → ::1, ::ffff:127.0.0.1 → ::ffff:7f00:1).
  return hostname === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/** True when the server bound to `host` (the `--host` value) only listens on loopback. */
export function isLoopbackAddress(host: string): boolean {
  const name = canonical(host, false);
  return name !== undefined && isLoopbackName(name);
}

/** True when a request's Host header (`127.0.0.1:3000`, `[::1]:3000`, `localhost`) names a loopback host. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (!header) return false;
  const name = canonical(header, true);
  return name !== undefined && isLoopbackName(name);
}

/** True when an Origin header (`http://localhost:5173`) is a loopback origin; `null` and anything unparsable is not. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackName(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}
