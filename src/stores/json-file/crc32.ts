import zlib from 'node:zlib';

// CRC-32 (the IEEE polynomial of zip, PNG and Bitcask), the checksum of every journal line, hint
// line and message record the store writes. Node has it natively from 20.15 (`zlib.crc32`, which
// runs zlib's vectorized code); the package supports Node 20 from its first release, so an older 20
// gets this table-driven version instead of a raised `engines` field: same results, a few times
// slower, and only reads and writes of that Node pay for it.

/** CRC-32 of `data` (a string is taken as its UTF-8 bytes), continuing from `initial` (the CRC of the bytes before it). */
export type Crc32 = (data: Uint8Array | string, initial?: number) => number;

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The table-driven CRC-32, for a Node without `zlib.crc32` (exported so tests can hold it to the native one). */
export const jsCrc32: Crc32 = (data, initial = 0) => {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let crc = ~initial >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
};

/** CRC-32: zlib's where Node has it, else {@link jsCrc32}. */
export const crc32: Crc32 = (zlib as { crc32?: Crc32 }).crc32 ?? jsCrc32;
