import { compareKeys, MAX_KEY_BYTES } from './term-keys.js';

/**
 * Terms per block: a lookup binary-searches the blocks' first terms, then reads at most this many
 * entries. Larger blocks cost more reading per lookup and save a block pointer and a first term
 * written whole per block.
 */
export const BLOCK_TERMS = 32;
/** Document numbers stay below this: a posting's varint stays a 32-bit integer. */
export const MAX_DOCS = 1 << 28;

// A read varint's end, set by readVarint: module state instead of a pair, which would be made per read.
let varintEnd = 0;
/** The unsigned varint at `bytes[at]` (at most 5 bytes, below 2^32); its end goes to `varintEnd`. */
function readVarint(bytes: Uint8Array, at: number): number {
  let byte = bytes[at++]!;
  let value = byte & 0x7f;
  let shift = 7;
  while (byte >= 0x80) {
    byte = bytes[at++]!;
    value |= (byte & 0x7f) << shift;
    shift += 7;
  }
  varintEnd = at;
  return value >>> 0;
}

/**
 * An immutable, sorted term dictionary with its postings: Lucene's block-tree idea, reduced to one
 * level. Entries are front-coded (each term as the bytes it shares with the previous one and the
 * rest, see term-keys.ts) in blocks of {@link BLOCK_TERMS}, each block starting with a whole term;
 * a small table holds where each block starts. Every entry carries its postings inline:
 *
 *     entry    := head suffix postings
 *     head     := one byte shared*16 + rest (both small), or 0xFF varint(shared) varint(rest)
 *     postings := varint(doc*2 + 1)                      one document, the term once in it
 *               | varint(doc*4 + 2) varint(count)         one document, the term `count` times
 *               | varint(df*4) varint(bytes) list         `df` ≥ 2 documents
 *     list     := per document: varint(gap*2 + 1), or varint(gap*2) varint(count); the first gap from -1
 *
 * A rare term (most terms of a text of made-up words) then costs its head byte, the letters it does
 * not share with its neighbour and two or three bytes of its one posting. The segment is two
 * buffers and two numbers: exactly what the index file holds, so a load reads them as they are.
 * A posting list is addressed by where its postings start (a `ref`).
 */
export class TermSegment {
  constructor(
    /** The entries, one after another. */
    readonly bytes: Uint8Array,
    /** Where each block's first entry starts. */
    readonly blocks: Uint32Array,
    /** Terms in the segment. */
    readonly terms: number,
    /** Postings in the segment (documents dead since included). */
    readonly postings: number,
  ) {}

  static readonly EMPTY = new TermSegment(new Uint8Array(0), new Uint32Array(0), 0, 0);

  /** Bytes it holds. */
  get byteLength(): number {
    return this.bytes.byteLength + this.blocks.byteLength;
  }

  /** The postings of the term whose key is `key[0, keyLength)` (a `ref`), or -1 if the segment does not hold it. */
  find(key: Uint8Array, keyLength: number): number {
    const block = this.#blockOf(key, keyLength);
    if (block < 0) return -1;
    const cursor = SCRATCH;
    cursor.reset(this, this.blocks[block]!, block * BLOCK_TERMS);
    const last = Math.min(this.terms, (block + 1) * BLOCK_TERMS);
    while (cursor.index < last && cursor.next()) {
      const order = compareKeys(cursor.key, cursor.keyLength, key, 0, keyLength);
      if (order === 0) return cursor.ref;
      if (order > 0) return -1;
    }
    return -1;
  }

  /** A cursor on the first term at or after `key[0, keyLength)` (call `next()` to read it), or on the first term without a key. */
  seek(key?: Uint8Array, keyLength = 0): SegmentCursor {
    const cursor = new SegmentCursor();
    if (!key || this.terms === 0) {
      cursor.reset(this, 0, 0);
      return cursor;
    }
    const block = Math.max(0, this.#blockOf(key, keyLength));
    cursor.reset(this, this.blocks[block] ?? 0, block * BLOCK_TERMS);
    // Read up to the first term not below the key, then step back onto it: `next()` reads it again.
    for (;;) {
      const at = cursor.offset;
      const index = cursor.index;
      if (!cursor.next()) return cursor;
      if (compareKeys(cursor.key, cursor.keyLength, key, 0, keyLength) >= 0) {
        cursor.rewind(at, index);
        return cursor;
      }
    }
  }

  /** How many documents a posting list holds. */
  count(ref: number): number {
    const p = readVarint(this.bytes, ref);
    return p & 1 || (p & 3) === 2 ? 1 : p >>> 2;
  }

  /** Calls `visit` with each posting of the list at `ref`, in document order. */
  forEachPosting(ref: number, visit: (doc: number, frequency: number) => void): void {
    const bytes = this.bytes;
    const p = readVarint(bytes, ref);
    if (p & 1) {
      visit(p >>> 1, 1);
      return;
    }
    if ((p & 3) === 2) {
      const frequency = readVarint(bytes, varintEnd);
      visit(p >>> 2, frequency);
      return;
    }
    const length = readVarint(bytes, varintEnd);
    let at = varintEnd;
    const end = at + length;
    let doc = -1;
    while (at < end) {
      const code = readVarint(bytes, at);
      doc += code >>> 1;
      if (code & 1) {
        at = varintEnd;
        visit(doc, 1);
      } else {
        const frequency = readVarint(bytes, varintEnd);
        at = varintEnd;
        visit(doc, frequency);
      }
    }
  }

  /** The last block whose first term is at or below the key (-1: the key is below every term). */
  #blockOf(key: Uint8Array, keyLength: number): number {
    const bytes = this.bytes;
    let low = 0;
    let high = this.blocks.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      // A block's first entry is a whole term: its head is its length (small) or 0xFF 0 varint(length).
      let at = this.blocks[middle]!;
      const head = bytes[at++]!;
      let length = head & 15;
      if (head === 0xff) {
        readVarint(bytes, at);
        length = readVarint(bytes, varintEnd);
        at = varintEnd;
      }
      if (compareKeys(key, keyLength, bytes, at, length) >= 0) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }
}

/**
 * Reads a segment's entries in order: after `next()`, `key[0, keyLength)` is the term and `ref`
 * its postings. One object per scan, its key rewritten in place.
 */
export class SegmentCursor {
  readonly key = new Uint8Array(MAX_KEY_BYTES);
  keyLength = 0;
  ref = -1;
  /** Terms read so far. */
  index = 0;
  /** Where the next entry starts. */
  offset = 0;
  #segment: TermSegment = TermSegment.EMPTY;

  get segment(): TermSegment {
    return this.#segment;
  }

  reset(segment: TermSegment, offset: number, index: number): void {
    this.#segment = segment;
    this.offset = offset;
    this.index = index;
    this.keyLength = 0;
    this.ref = -1;
  }

  /** Puts the cursor back before the entry at `offset` (the `index`th), which starts a block or follows the current term. */
  rewind(offset: number, index: number): void {
    this.offset = offset;
    this.index = index;
  }

  /** Calls `visit` with each posting of the current term, in document order. */
  forEachPosting(visit: (doc: number, frequency: number) => void): void {
    this.#segment.forEachPosting(this.ref, visit);
  }

  /** Reads the next entry; false at the end of the segment. */
  next(): boolean {
    const segment = this.#segment;
    if (this.index >= segment.terms) {
      this.ref = -1;
      return false;
    }
    const bytes = segment.bytes;
    let at = this.offset;
    const head = bytes[at++]!;
    let shared = head >>> 4;
    let rest = head & 15;
    if (head === 0xff) {
      shared = readVarint(bytes, at);
      rest = readVarint(bytes, varintEnd);
      at = varintEnd;
    }
    const key = this.key;
    for (let i = 0; i < rest; i++) key[shared + i] = bytes[at + i]!;
    this.keyLength = shared + rest;
    at += rest;
    this.ref = at;
    const p = readVarint(bytes, at);
    if (p & 1) at = varintEnd;
    else if ((p & 3) === 2) {
      readVarint(bytes, varintEnd);
      at = varintEnd;
    } else {
      const length = readVarint(bytes, varintEnd);
      at = varintEnd + length;
    }
    this.offset = at;
    this.index++;
    return true;
  }
}

/** The cursor lookups use: a lookup runs to its end before the next one starts. */
const SCRATCH = new SegmentCursor();

/**
 * Writes a segment, term by term in increasing order: `startTerm`, its postings in document order
 * (`addPosting`), `endTerm`. A term given no posting is left out. Its buffer grows by doubling;
 * `finish` cuts it to size.
 */
export class SegmentWriter {
  #bytes: Uint8Array<ArrayBuffer>;
  #top = 0;
  #blocks = new Uint32Array(1024);
  #terms = 0;
  #postings = 0;
  #previous = new Uint8Array(MAX_KEY_BYTES);
  #previousLength = 0;
  #key = new Uint8Array(MAX_KEY_BYTES);
  #keyLength = 0;
  // The current term's postings: the first one aside (a term in one document is written without a
  // list), all of them encoded as a list in `#list`.
  #df = 0;
  #firstDoc = 0;
  #firstFrequency = 0;
  #lastDoc = -1;
  #list: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  #listTop = 0;

  constructor(capacity = 1 << 16) {
    this.#bytes = new Uint8Array(Math.max(64, capacity));
  }

  /** Bytes written so far. */
  get byteLength(): number {
    return this.#top;
  }

  get terms(): number {
    return this.#terms;
  }

  /** Starts the term `key[0, keyLength)`, which must come after the last one written. */
  startTerm(key: Uint8Array, keyLength: number): void {
    if (keyLength > MAX_KEY_BYTES) throw new Error(`A term of ${keyLength} bytes is longer than a segment holds.`);
    const into = this.#key;
    for (let i = 0; i < keyLength; i++) into[i] = key[i]!;
    this.#keyLength = keyLength;
    this.#df = 0;
    this.#lastDoc = -1;
    this.#listTop = 0;
  }

  /** Adds that document `doc` (above the term's previous one) holds the term `frequency` times. */
  addPosting(doc: number, frequency: number): void {
    if (this.#df === 0) {
      this.#firstDoc = doc;
      this.#firstFrequency = frequency;
    }
    this.#df++;
    const gap = doc - this.#lastDoc;
    this.#lastDoc = doc;
    if (this.#listTop + 10 > this.#list.length) this.#list = grownBytes(this.#list, this.#listTop + 10);
    if (frequency === 1) this.#listTop = writeVarint(this.#list, this.#listTop, gap * 2 + 1);
    else {
      this.#listTop = writeVarint(this.#list, this.#listTop, gap * 2);
      this.#listTop = writeVarint(this.#list, this.#listTop, frequency);
    }
  }

  /** Writes the term and its postings (nothing, if it has none). */
  endTerm(): void {
    const df = this.#df;
    if (df === 0) return;
    const keyLength = this.#keyLength;
    const key = this.#key;
    const blockStart = this.#terms % BLOCK_TERMS === 0;
    let shared = 0;
    if (!blockStart) {
      const previous = this.#previous;
      const n = Math.min(keyLength, this.#previousLength);
      while (shared < n && previous[shared] === key[shared]) shared++;
    }
    const rest = keyLength - shared;
    this.#reserve(16 + rest + this.#listTop);
    const bytes = this.#bytes;
    let at = this.#top;
    if (blockStart) {
      const block = this.#terms / BLOCK_TERMS;
      if (block === this.#blocks.length) {
        const blocks = new Uint32Array(this.#blocks.length * 2);
        blocks.set(this.#blocks);
        this.#blocks = blocks;
      }
      this.#blocks[block] = at;
    }
    if (shared < 15 && rest < 16) bytes[at++] = shared * 16 + rest;
    else {
      bytes[at++] = 0xff;
      at = writeVarint(bytes, at, shared);
      at = writeVarint(bytes, at, rest);
    }
    for (let i = shared; i < keyLength; i++) bytes[at++] = key[i]!;
    if (df === 1 && this.#firstFrequency === 1) at = writeVarint(bytes, at, this.#firstDoc * 2 + 1);
    else if (df === 1) {
      at = writeVarint(bytes, at, this.#firstDoc * 4 + 2);
      at = writeVarint(bytes, at, this.#firstFrequency);
    } else {
      at = writeVarint(bytes, at, df * 4);
      at = writeVarint(bytes, at, this.#listTop);
      const list = this.#list;
      const listTop = this.#listTop;
      if (listTop > 64) bytes.set(list.subarray(0, listTop), at);
      else for (let i = 0; i < listTop; i++) bytes[at + i] = list[i]!;
      at += listTop;
    }
    this.#top = at;
    // The term becomes the previous one: the two buffers change places.
    this.#key = this.#previous;
    this.#previous = key;
    this.#previousLength = keyLength;
    this.#terms++;
    this.#postings += df;
  }

  /**
   * The segment written, its buffers cut to size: a copy made a MiB per step (yields between), so
   * that a large segment is finished without holding the event loop.
   */
  *finish(): Generator<void, TermSegment> {
    const blocks = this.#blocks.slice(0, Math.ceil(this.#terms / BLOCK_TERMS));
    let bytes = this.#bytes.subarray(0, this.#top);
    if (this.#bytes.length > this.#top) {
      const exact = new Uint8Array(this.#top);
      for (let at = 0; at < this.#top; at += COPY_BYTES) {
        exact.set(bytes.subarray(at, Math.min(this.#top, at + COPY_BYTES)), at);
        yield;
      }
      bytes = exact;
    }
    this.#bytes = new Uint8Array(0);
    return new TermSegment(bytes, blocks, this.#terms, this.#postings);
  }

  #reserve(extra: number): void {
    if (this.#top + extra > this.#bytes.length) this.#bytes = grownBytes(this.#bytes, this.#top + extra);
  }
}

const COPY_BYTES = 1 << 20;

function grownBytes(from: Uint8Array, atLeast: number): Uint8Array<ArrayBuffer> {
  const to = new Uint8Array(Math.max(atLeast, Math.ceil(from.length * 1.5)));
  to.set(from);
  return to;
}

function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[at++] = value;
  return at;
}

/**
 * Whether a segment read from a file is one {@link SegmentWriter} could have written, for documents
 * below `docs`: every entry inside the buffer, terms in strictly increasing order, each block
 * starting where the table says with a whole term, every posting list as long as it says with
 * documents in increasing order and counts of at least one. A step per few hundred entries
 * (yields between). Once it passes, reading the segment never leaves its buffer.
 */
export function* validateSegment(segment: TermSegment, docs: number): Generator<void, boolean> {
  const { bytes, blocks, terms } = segment;
  if (blocks.length !== Math.ceil(terms / BLOCK_TERMS) || docs > MAX_DOCS) return false;
  const end = bytes.length;
  let key = new Uint8Array(MAX_KEY_BYTES);
  let previous = new Uint8Array(MAX_KEY_BYTES);
  let previousLength = 0;
  let at = 0;
  let postings = 0;
  // Reads a varint that must end inside the buffer and stay below 2^31; -1 if not.
  const varint = (from: number): number => {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      if (from + i >= end) return -1;
      const byte = bytes[from + i]!;
      value += (byte & 0x7f) * 2 ** (7 * i);
      if (byte < 0x80) {
        varintEnd = from + i + 1;
        return value < 2 ** 31 ? value : -1;
      }
    }
    return -1;
  };
  for (let index = 0; index < terms; index++) {
    if (index % 512 === 511) yield;
    const blockStart = index % BLOCK_TERMS === 0;
    if (blockStart && blocks[index / BLOCK_TERMS] !== at) return false;
    if (at >= end) return false;
    const head = bytes[at++]!;
    let shared = head >>> 4;
    let rest = head & 15;
    if (head === 0xff) {
      shared = varint(at);
      if (shared < 0) return false;
      rest = varint(varintEnd);
      if (rest < 0) return false;
      at = varintEnd;
    } else if (head >= 0xf0) return false;
    if (shared > previousLength || (blockStart && shared !== 0) || shared + rest > MAX_KEY_BYTES || at + rest > end) return false;
    // Byte by byte: a view per entry would be millions of short-lived objects.
    for (let i = 0; i < shared; i++) key[i] = previous[i]!;
    for (let i = 0; i < rest; i++) key[shared + i] = bytes[at + i]!;
    const length = shared + rest;
    if (index > 0 && compareKeys(previous, previousLength, key, 0, length) >= 0) return false;
    [previous, key] = [key, previous];
    previousLength = length;
    at += rest;
    const p = varint(at);
    if (p < 0) return false;
    at = varintEnd;
    if (p % 2 === 1) {
      if ((p - 1) / 2 >= docs) return false;
      postings++;
    } else if (p % 4 === 2) {
      const frequency = varint(at);
      if ((p - 2) / 4 >= docs || frequency < 1 || frequency > 0xffff) return false;
      at = varintEnd;
      postings++;
    } else {
      const df = p / 4;
      const length = varint(at);
      if (df < 2 || length < 0 || varintEnd + length > end) return false;
      at = varintEnd;
      const stop = at + length;
      let doc = -1;
      let count = 0;
      while (at < stop) {
        const code = varint(at);
        if (code < 2 || varintEnd > stop) return false;
        at = varintEnd;
        doc += Math.floor(code / 2);
        if (code % 2 === 0) {
          const frequency = varint(at);
          if (frequency < 1 || frequency > 0xffff || varintEnd > stop) return false;
          at = varintEnd;
        }
        count++;
      }
      if (count !== df || doc >= docs) return false;
      postings += df;
    }
  }
  return at === end && postings === segment.postings;
}
