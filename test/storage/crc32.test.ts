import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, jsCrc32 } from '../../src/stores/json-file/crc32.js';

describe('CRC-32 of the store', () => {
  it('is the standard CRC-32 (the check value of "123456789" is 0xCBF43926)', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(jsCrc32('123456789')).toBe(0xcbf43926);
    expect(jsCrc32('')).toBe(0);
  });

  it("falls back, on a Node without zlib.crc32, to a version that answers the same as zlib's", () => {
    for (let i = 0; i < 50; i++) {
      const bytes = randomBytes(i * 37);
      expect(jsCrc32(bytes)).toBe(zlib.crc32(bytes));
      // Continued from the CRC of what came before, as the journal's lines are checksummed piece by piece.
      const cut = Math.floor(bytes.length / 3);
      expect(jsCrc32(bytes.subarray(cut), jsCrc32(bytes.subarray(0, cut)))).toBe(zlib.crc32(bytes));
    }
    // Strings are taken as their UTF-8 bytes.
    const text = 'Größe 的 🥝 "quoted"\n';
    expect(jsCrc32(text)).toBe(zlib.crc32(text));
    expect(jsCrc32(text)).toBe(zlib.crc32(Buffer.from(text)));
  });
});
