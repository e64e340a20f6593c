/**
 * Parsing IP addresses and deciding which are generic enough for an entry.
 *
 * Allowed (they say nothing about anyone's network): unspecified (`0.0.0.0`, `::`), loopback
 * (`127.0.0.0/8`, `::1`), broadcast and netmasks (`255.255.255.0`), the documentation ranges
 * (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`), the cloud metadata
 * address `169.254.169.254`, well-known public resolvers (`8.8.8.8`, `8.8.4.4`, `1.1.1.1`,
 * `1.0.0.1`, `9.9.9.9`) and the canonical private blocks written as CIDR (`10.0.0.0/8`,
 * `172.16.0.0/12`, `192.168.0.0/16`, `169.254.0.0/16`, `100.64.0.0/10`, `fc00::/7`, `fe80::/10`).
 * Every other address, private ones included, reveals infrastructure and is reported.
 */

const WELL_KNOWN_V4 = new Set(["169.254.169.254", "8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9"]);
const CANONICAL_BLOCKS = new Set([
  "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "0.0.0.0/0",
  "224.0.0.0/4", "fc00::/7", "fd00::/8", "fe80::/10", "::/0", "::1/128", "::ffff:0:0/96", "64:ff9b::/96",
]);

/** Octets of a dotted quad, or undefined when it is not one (octet > 255 or a leading zero). */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith("0"))) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    octets.push(n);
  }
  return octets;
}

function isNetmask(octets: readonly number[]): boolean {
  const bits = octets.reduce((acc, o) => acc * 256 + o, 0);
  if (octets[0] !== 255) return false;
  const inverted = 0xffffffff - bits;
  return (inverted & (inverted + 1)) === 0;
}

/** True when an IPv4 address (optionally with a `/prefix`) is generic enough for an entry. */
export function isAllowedIPv4(octets: readonly number[], cidr?: string): boolean {
  const [a, b, c] = octets;
  const text = octets.join(".");
  if (cidr !== undefined && CANONICAL_BLOCKS.has(`${text}/${cidr}`)) return true;
  if (octets.every((o) => o === 0) || a === 127 || isNetmask(octets)) return true;
  if (WELL_KNOWN_V4.has(text)) return true;
  return (a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113);
}

/**
 * The eight 16-bit groups of an IPv6 address, or undefined. Requires at least one decimal
 * digit so that `a::b`, `add::bad` and C++/Rust paths are never addresses.
 */
export function parseIPv6(text: string): number[] | undefined {
  if (!/\d/.test(text) || text.includes(":::") || !text.includes(":")) return undefined;
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    tail4 = [(v4[0] ?? 0) * 256 + (v4[1] ?? 0), (v4[2] ?? 0) * 256 + (v4[3] ?? 0)];
    head = text.slice(0, lastColon + 1);
    if (!head.endsWith("::")) head = head.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === "") return [];
    const groups = part.split(":");
    if (groups.some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return undefined;
    return groups.map((g) => parseInt(g, 16));
  };
  const left = parse(halves[0] ?? "");
  const right = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!left || !right) return undefined;
  const count = left.length + right.length + tail4.length;
  if (halves.length === 1) return count === 8 ? [...left, ...tail4] : undefined;
  if (count > 7) return undefined;
  return [...left, ...new Array<number>(8 - count).fill(0), ...right, ...tail4];
}

/** True when an IPv6 address (optionally with a `/prefix`) is generic enough for an entry. */
export function isAllowedIPv6(groups: readonly number[], written: string, cidr?: string): boolean {
  if (cidr !== undefined && CANONICAL_BLOCKS.has(`${written.toLowerCase()}/${cidr}`)) return true;
  const zeroHead = groups.slice(0, 7).every((g) => g === 0);
  if (zeroHead && ((groups[7] ?? 0) <= 1)) return true; // :: and ::1
  return groups[0] === 0x2001 && groups[1] === 0x0db8; // documentation prefix
}
