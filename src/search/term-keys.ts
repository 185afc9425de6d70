/**
 * Terms as bytes, for the index's immutable segments: each UTF-16 unit of the term written as UTF-8
 * would write that unit alone (1 byte for ASCII, 2 or 3 otherwise; a surrogate as 3 bytes, as
 * CESU-8 does). Unlike UTF-8, comparing two keys byte by byte then orders them as JavaScript orders
 * the strings (by UTF-16 unit), so a segment's order and a sorted array of strings agree; and a key
 * starts with another exactly when its term starts with the other's.
 */

/** Bytes a key takes at most: terms are 40 characters or fewer (see tokens.ts), 3 bytes each. */
export const MAX_KEY_BYTES = 255;

/** Writes `term`'s key at the start of `into` (at least 3 bytes per unit long); answers its length. */
export function encodeKey(term: string, into: Uint8Array): number {
  let at = 0;
  for (let i = 0; i < term.length; i++) {
    const unit = term.charCodeAt(i);
    if (unit < 0x80) into[at++] = unit;
    else if (unit < 0x800) {
      into[at++] = 0xc0 | (unit >> 6);
      into[at++] = 0x80 | (unit & 0x3f);
    } else {
      into[at++] = 0xe0 | (unit >> 12);
      into[at++] = 0x80 | ((unit >> 6) & 0x3f);
      into[at++] = 0x80 | (unit & 0x3f);
    }
  }
  return at;
}

/** The term whose key is `bytes[start, end)`. */
export function decodeKey(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  let at = start;
  while (at < end) {
    const byte = bytes[at]!;
    if (byte < 0x80) {
      text += String.fromCharCode(byte);
      at++;
    } else if (byte < 0xe0) {
      text += String.fromCharCode(((byte & 0x1f) << 6) | (bytes[at + 1]! & 0x3f));
      at += 2;
    } else {
      text += String.fromCharCode(((byte & 0x0f) << 12) | ((bytes[at + 1]! & 0x3f) << 6) | (bytes[at + 2]! & 0x3f));
      at += 3;
    }
  }
  return text;
}

/** How `a[0, aLength)` orders against `b[0, bLength)`: negative, 0 or positive. */
export function compareKeys(a: Uint8Array, aLength: number, b: Uint8Array, bStart: number, bLength: number): number {
  const n = aLength < bLength ? aLength : bLength;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[bStart + i]!;
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/** Whether `key[0, keyLength)` starts with `prefix[0, prefixLength)`. */
export function startsWithKey(key: Uint8Array, keyLength: number, prefix: Uint8Array, prefixLength: number): boolean {
  if (keyLength < prefixLength) return false;
  for (let i = 0; i < prefixLength; i++) if (key[i] !== prefix[i]) return false;
  return true;
}
