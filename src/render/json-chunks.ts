import { joinInSlices } from '../slices.js';

// Serializing a conversation of 20,000 messages takes a good part of a second: done in one piece,
// every other client waits that long. These pieces let a caller serialize a few hundred list
// items at a time and give the event loop back in between.

/** Array items serialized per piece. */
const ITEMS_PER_CHUNK = 256;
/** Characters of a piece, at most about: items of a search's answer may be kilobytes each. */
const PIECE_CHARS = 64 * 1024;

/** Whether `value` has, within `depth` levels, an array longer than one piece. */
export function hasLongList(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth < 0) return false;
  if (Array.isArray(value)) return value.length > ITEMS_PER_CHUNK || value.some((item) => hasLongList(item, depth - 1));
  // Not Object.values: for an object of 20,000 fields (a conversation's `indices`) that list alone
  // costs more than serializing the object.
  for (const key in value) {
    if (Object.hasOwn(value, key) && hasLongList((value as Record<string, unknown>)[key], depth - 1)) return true;
  }
  return false;
}

/**
 * The JSON text of `value` in pieces, which joined are `JSON.stringify(value)`: a piece per few
 * hundred list items (or 64 K characters of them), and per long nested list.
 */
export function* jsonChunks(value: unknown): Generator<string, void, undefined> {
  if (typeof value !== 'object' || value === null || !hasLongList(value, 3)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  const isArray = Array.isArray(value);
  const entries: [string | undefined, unknown][] = isArray ? value.map((item) => [undefined, item]) : Object.entries(value);
  // The items of a very long list (a conversation's messages) are small: not worth looking into.
  const lookInside = entries.length <= MAX_ITEMS_LOOKED_INTO;
  let piece: string[] = [isArray ? '[' : '{'];
  let chars = 0;
  let first = true;
  for (const [key, nested] of entries) {
    // What JSON.stringify leaves out of an object.
    if (!isArray && (nested === undefined || typeof nested === 'function' || typeof nested === 'symbol')) continue;
    piece.push(`${first ? '' : ','}${key === undefined ? '' : `${JSON.stringify(key)}:`}`);
    first = false;
    if (lookInside && hasLongList(nested, 2)) {
      yield piece.join('');
      piece = [];
      chars = 0;
      yield* jsonChunks(nested);
      continue;
    }
    const text = JSON.stringify(nested) ?? 'null';
    piece.push(text);
    chars += text.length;
    if (piece.length >= 2 * ITEMS_PER_CHUNK || chars >= PIECE_CHARS) {
      yield piece.join('');
      piece = [];
      chars = 0;
    }
  }
  piece.push(isArray ? ']' : '}');
  yield piece.join('');
}

/** Lists longer than this (a page holds at most 1,000 items) have their items serialized whole. */
const MAX_ITEMS_LOOKED_INTO = 1_000;

/** `JSON.stringify(value)`, built a slice at a time (see {@link joinInSlices}). */
export function stringifyInSlices(value: unknown): Promise<string> {
  return joinInSlices(jsonChunks(value));
}
