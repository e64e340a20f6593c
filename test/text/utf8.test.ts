/** Strict UTF-8: the first invalid byte, wherever a decoder would stop (the same as TextDecoder's fatal mode). */
import { describe, expect, it } from "vitest";
import { decodeUtf8, firstInvalidUtf8 } from "../../src/text/utf8.js";

const b = (...bytes: number[]) => Uint8Array.from(bytes);

describe("firstInvalidUtf8", () => {
  it("accepts every valid sequence and finds stray, overlong, surrogate, out-of-range and truncated ones", () => {
    expect(firstInvalidUtf8(Buffer.from("plain, café, 漢字, 😀, \uFFFD written as text"))).toBe(-1);
    const cases: Array<[Uint8Array, number]> = [
      [b(0x61, 0x80), 1], // a continuation byte alone
      [b(0x61, 0xc0, 0xaf), 1], // overlong "/"
      [b(0xe0, 0x80, 0xaf), 0], // overlong three-byte
      [b(0xed, 0xa0, 0x80), 0], // a UTF-16 surrogate
      [b(0xf4, 0x90, 0x80, 0x80), 0], // above U+10FFFF
      [b(0xf5, 0x80, 0x80, 0x80), 0],
      [b(0x61, 0x62, 0xe2, 0x82), 2], // truncated at the end
      [b(0xff), 0],
    ];
    for (const [bytes, at] of cases) {
      expect(firstInvalidUtf8(bytes), Buffer.from(bytes).toString("hex")).toBe(at);
      expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes)).toThrow();
    }
  });

  it("says where: 1-based line and byte column", () => {
    expect(decodeUtf8(Buffer.concat([Buffer.from("one\ntwo é "), b(0xe9)]))).toEqual({ invalid: { line: 2, column: 8, byte: 0xe9 } });
    expect(decodeUtf8(Buffer.from("ok\n"))).toEqual({ text: "ok\n" });
  });
});
