/** Event ids: ULID-style, 26 Crockford base32 characters, sortable by the event's time. */
import { randomFillSync } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const MAX_TIME = 2 ** 48 - 1;

let lastTime = -1;
const lastRandom = new Uint8Array(10);

function encodeTime(ms: number): string {
  let value = Math.min(Math.max(Math.floor(ms), 0), MAX_TIME);
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 characters of 5 bits, most significant first.
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/** Add one to the random part; returns false on overflow. */
function increment(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const next = (bytes[i] ?? 0) + 1;
    if (next <= 255) {
      bytes[i] = next;
      return true;
    }
    bytes[i] = 0;
  }
  return false;
}

/**
 * A new unique event id whose first 10 characters encode `timeMs`. Ids made in this process
 * for the same millisecond increase monotonically, so a batch keeps its order when sorted.
 */
export function newEventId(timeMs: number): string {
  if (timeMs !== lastTime || !increment(lastRandom)) {
    randomFillSync(lastRandom);
    lastTime = timeMs;
  }
  return encodeTime(timeMs) + encodeRandom(lastRandom);
}
