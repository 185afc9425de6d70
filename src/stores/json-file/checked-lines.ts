import { crc32 } from './crc32.js';

// A line of the journal or of a hint file is a JSON object whose last field is its checksum:
// `{"seq":7,…,"crc":2043817312}`, the CRC-32 of the line's bytes before `,"crc":`. The line stays
// JSON a person (or jq) can read, and damage to any byte of it, the checksum's own included, is
// found when it is read.

const FIELD = ',"crc":';
const FIELD_BYTES = Buffer.from(FIELD);
const CLOSE = '}'.charCodeAt(0);
const ZERO = '0'.charCodeAt(0);
const NINE = '9'.charCodeAt(0);

/** A JSON object's text with its checksum added as its last field. */
export function withChecksum(objectText: string): string {
  const open = objectText.slice(0, -1);
  return `${open}${FIELD}${crc32(open)}}`;
}

/**
 * The end of a line whose bytes so far (a JSON object's text without its closing brace) have the
 * CRC `crc`: the checksum field, the brace and the newline.
 */
export const checksumEnd = (crc: number): string => `${FIELD}${crc}}\n`;

/** What {@link checkLine} found: a checksum that matches, one that does not, or none at all (a line written before version 6). */
export type LineCheck = 'ok' | 'mismatch' | 'none';

/** Checks the line at bytes `start` to `end` (its newline excluded) of `buffer` against its checksum field. */
export function checkLine(buffer: Buffer, start: number, end: number): LineCheck {
  if (end <= start || buffer[end - 1] !== CLOSE) return 'none';
  // Searched within the line alone: a line without the field must not send the search back through the lines before it.
  const inLine = buffer.subarray(start, end).lastIndexOf(FIELD_BYTES);
  if (inLine < 0) return 'none';
  const at = start + inLine;
  let value = 0;
  const digits = end - 1 - (at + FIELD_BYTES.length);
  if (digits < 1 || digits > 10) return 'none';
  for (let i = at + FIELD_BYTES.length; i < end - 1; i++) {
    const byte = buffer[i]!;
    if (byte < ZERO || byte > NINE) return 'none';
    value = value * 10 + (byte - ZERO);
  }
  return crc32(buffer.subarray(start, at)) === value ? 'ok' : 'mismatch';
}
