/** A catalogue record's `fileHash`: the first 32 hex digits of the sha256 of the entry file's bytes. A module of its own: `inject` compares it without loading the catalogue. */
import { createHash } from "node:crypto";

/** A record's `fileHash` from the file's sha256 (hex): an entry's `hash`, or the digest of bytes read again. */
export function fileHashOf(sha256Hex: string): string {
  return sha256Hex.slice(0, 32);
}

/** True when `bytes` are the file a record was made from. */
export function sameFileBytes(bytes: Uint8Array, record: { fileHash: string }): boolean {
  return fileHashOf(createHash("sha256").update(bytes).digest("hex")) === record.fileHash;
}
