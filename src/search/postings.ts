import { grown } from '../typed-arrays.js';

const CHUNK_BITS = 20;
const CHUNK_BYTES = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_BYTES - 1;
/** Bytes of a list's slices, from its first on: a rare term costs 8 bytes, a common one grows by ever larger slices. */
const SLICE_BYTES = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const LAST_LEVEL = SLICE_BYTES.length - 1;
/** The last 4 bytes of a slice address the next one. */
const POINTER = 4;

/**
 * The postings of every term in one pool of 1 MiB byte chunks (Lucene's ByteBlockPool): each list
 * is a chain of slices that double in size, so appending never moves bytes and a term costs 8
 * bytes until it has more to say. A posting is the document number's distance from the list's
 * previous one, shifted left by one, with the low bit set when the term occurs once; otherwise its
 * count follows. Both are varints: a posting takes two bytes or less.
 */
export class PostingPool {
  #chunks: Uint8Array[] = [];
  /** The next free byte of the pool. */
  #top = 0;
  // Per list: where it starts, where the next byte goes, where the current slice's pointer is,
  // the current slice's level, and the last document it holds.
  #head = new Int32Array(1024);
  #write = new Int32Array(1024);
  #end = new Int32Array(1024);
  #level = new Uint8Array(1024);
  #last = new Int32Array(1024);
  /** Postings in the list (dead documents' included, until the index is compacted). */
  #count = new Int32Array(1024);
  #lists = 0;

  /** Bytes the pool and its tables hold. */
  get bytes(): number {
    return this.#chunks.length * CHUNK_BYTES + this.#head.length * 21;
  }

  /** Starts an empty list; answers its number. */
  newList(): number {
    const list = this.#lists++;
    if (list === this.#head.length) this.#grow(list * 2);
    const start = this.#allocate(0);
    this.#head[list] = start;
    this.#write[list] = start;
    this.#end[list] = start + SLICE_BYTES[0]! - POINTER;
    this.#level[list] = 0;
    this.#last[list] = -1;
    return list;
  }

  /** How many postings the list holds. */
  count(list: number): number {
    return this.#count[list]!;
  }

  /** Appends that `doc` (larger than every document in the list) holds the term `frequency` times. */
  add(list: number, doc: number, frequency: number): void {
    const gap = doc - this.#last[list]!;
    this.#last[list] = doc;
    this.#count[list]!++;
    if (frequency === 1) this.#varint(list, gap * 2 + 1);
    else {
      this.#varint(list, gap * 2);
      this.#varint(list, frequency);
    }
  }

  /** Calls `visit` with each posting of the list, in document order, its document number plus `base`. */
  forEach(list: number, visit: (doc: number, frequency: number) => void, base = 0): void {
    const chunks = this.#chunks;
    const stop = this.#write[list]!;
    const top = this.#top;
    let at = this.#head[list]!;
    let level = 0;
    let end = at + SLICE_BYTES[0]! - POINTER;
    let doc = base - 1;
    // One byte at a time, following the slice pointers (a varint may span two slices); written
    // out rather than in closures, which would be made on every call.
    let value = 0;
    let scale = 1;
    let code = -1;
    while (at !== stop) {
      if (at === end) {
        const to = readPointer(chunks, end);
        // Slices are allocated one after another: a pointer goes forward, inside the pool. One
        // that does not (a damaged pool: never, short of a bug) ends the list rather than looping on it.
        if (to <= end || to >= top) return;
        at = to;
        if (level < LAST_LEVEL) level++;
        end = at + SLICE_BYTES[level]! - POINTER;
        continue;
      }
      const byte = chunks[at >>> CHUNK_BITS]![at & CHUNK_MASK]!;
      at++;
      value += (byte & 0x7f) * scale;
      if (byte >= 0x80) {
        scale *= 128;
        continue;
      }
      // A whole varint: a document's code, or the count that follows an even one.
      if (code < 0) {
        if (value % 2 === 1) {
          doc += (value - 1) / 2;
          visit(doc, 1);
        } else code = value;
      } else {
        doc += code / 2;
        visit(doc, value);
        code = -1;
      }
      value = 0;
      scale = 1;
    }
  }

  #varint(list: number, value: number): void {
    while (value >= 0x80) {
      this.#byte(list, (value % 128) | 0x80);
      value = Math.floor(value / 128);
    }
    this.#byte(list, value);
  }

  #byte(list: number, byte: number): void {
    let at = this.#write[list]!;
    const end = this.#end[list]!;
    if (at === end) {
      const level = Math.min(this.#level[list]! + 1, LAST_LEVEL);
      at = this.#allocate(level);
      writePointer(this.#chunks, end, at);
      this.#level[list] = level;
      this.#end[list] = at + SLICE_BYTES[level]! - POINTER;
    }
    this.#chunks[at >>> CHUNK_BITS]![at & CHUNK_MASK] = byte;
    this.#write[list] = at + 1;
  }

  /** A slice of `level`'s size; never across two chunks. */
  #allocate(level: number): number {
    const size = SLICE_BYTES[level]!;
    if (this.#top + size > this.#chunks.length * CHUNK_BYTES) {
      this.#top = this.#chunks.length * CHUNK_BYTES;
      this.#chunks.push(new Uint8Array(CHUNK_BYTES));
    }
    const start = this.#top;
    this.#top += size;
    return start;
  }

  #grow(size: number): void {
    this.#head = grown(this.#head, size, Int32Array);
    this.#write = grown(this.#write, size, Int32Array);
    this.#end = grown(this.#end, size, Int32Array);
    this.#last = grown(this.#last, size, Int32Array);
    this.#count = grown(this.#count, size, Int32Array);
    this.#level = grown(this.#level, size, Uint8Array);
  }
}

function readPointer(chunks: Uint8Array[], at: number): number {
  const chunk = chunks[at >>> CHUNK_BITS]!;
  const i = at & CHUNK_MASK;
  return (chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16) | (chunk[i + 3]! << 24)) >>> 0;
}

function writePointer(chunks: Uint8Array[], at: number, value: number): void {
  const chunk = chunks[at >>> CHUNK_BITS]!;
  const i = at & CHUNK_MASK;
  chunk[i] = value & 0xff;
  chunk[i + 1] = (value >>> 8) & 0xff;
  chunk[i + 2] = (value >>> 16) & 0xff;
  chunk[i + 3] = (value >>> 24) & 0xff;
}
