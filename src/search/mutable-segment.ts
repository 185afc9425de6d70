import { PostingPool } from './postings.js';
import { encodeKey, MAX_KEY_BYTES } from './term-keys.js';

/** New terms left unsorted at most. */
const UNSORTED_TERMS = 4096;

/**
 * The terms of the latest writes, before they go into an immutable segment (see term-segment.ts):
 * a Map of terms to posting lists in a {@link PostingPool}, which takes appends at no cost. Kept
 * small (the dictionary flushes it into a segment once it grows), so its JS strings and Map
 * entries never number in the millions. Its postings hold document numbers less `base`: when the
 * index renumbers its documents, the segment's are shifted by changing `base` alone.
 */
export class MutableSegment {
  #terms = new Map<string, number>();
  /**
   * The terms in order, for prefixes and for the flush: found by binary search instead of a pass
   * over every term. New terms wait in a short list, sorted and merged in once it holds
   * {@link UNSORTED_TERMS} (or when the order is needed whole): a few milliseconds each time, so
   * that no write takes long.
   */
  #sorted: string[] = [];
  #unsorted: string[] = [];
  readonly #pool = new PostingPool();
  #postings = 0;

  constructor(
    /** What its postings' document numbers are counted from. */
    public base: number,
  ) {}

  get terms(): number {
    return this.#terms.size;
  }

  /** Postings it holds. */
  get postings(): number {
    return this.#postings;
  }

  /** Bytes it holds, roughly: its pool and its strings and Map at their usual cost in V8. */
  get bytes(): number {
    let terms = 0;
    for (const term of this.#terms.keys()) terms += 56 + term.length;
    return terms + this.#pool.bytes;
  }

  /** The posting list of `term`, or undefined. */
  find(term: string): number | undefined {
    return this.#terms.get(term);
  }

  /** The posting list of `term`, made if it has none. */
  listOf(term: string): number {
    let list = this.#terms.get(term);
    if (list === undefined) {
      list = this.#pool.newList();
      this.#terms.set(term, list);
      this.#unsorted.push(term);
      if (this.#unsorted.length >= UNSORTED_TERMS) this.#sort();
    }
    return list;
  }

  /** Appends that document `doc` (above every document of the list) holds the list's term `frequency` times. */
  add(list: number, doc: number, frequency: number): void {
    this.#pool.add(list, doc - this.base, frequency);
    this.#postings++;
  }

  count(list: number): number {
    return this.#pool.count(list);
  }

  forEachPosting(list: number, visit: (doc: number, frequency: number) => void): void {
    this.#pool.forEach(list, visit, this.base);
  }

  /** Calls `visit` with each term starting with `prefix` and its list, in order, while it answers true. */
  forEachWithPrefix(prefix: string, visit: (term: string, list: number) => boolean): void {
    const found = this.#unsorted.filter((term) => term.startsWith(prefix)).sort();
    const sorted = this.#sorted;
    let i = lowerBound(sorted, prefix);
    let j = 0;
    for (;;) {
      const a = i < sorted.length && sorted[i]!.startsWith(prefix) ? sorted[i] : undefined;
      const b = found[j];
      if (a === undefined && b === undefined) return;
      const term = b === undefined || (a !== undefined && a < b) ? sorted[i++]! : found[j++]!;
      if (!visit(term, this.#terms.get(term)!)) return;
    }
  }

  /** Its terms in order, each with its list: for a flush into a segment (the segment must not change meanwhile). */
  cursor(): MutableCursor {
    this.#sort();
    return new MutableCursor(this.#sorted, this.#terms, this);
  }

  #sort(): void {
    if (this.#unsorted.length === 0) return;
    const fresh = this.#unsorted.sort();
    const sorted = this.#sorted;
    const merged: string[] = new Array(sorted.length + fresh.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < sorted.length && j < fresh.length) merged[k++] = sorted[i]! < fresh[j]! ? sorted[i++]! : fresh[j++]!;
    while (i < sorted.length) merged[k++] = sorted[i++]!;
    while (j < fresh.length) merged[k++] = fresh[j++]!;
    this.#sorted = merged;
    this.#unsorted = [];
  }
}

/** A mutable segment's terms in order, as the merge reads them (see segment-merge.ts). */
export class MutableCursor {
  readonly key = new Uint8Array(MAX_KEY_BYTES);
  keyLength = 0;
  #index = -1;
  #list = -1;

  constructor(
    private readonly sorted: readonly string[],
    private readonly lists: ReadonlyMap<string, number>,
    private readonly segment: MutableSegment,
  ) {}

  next(): boolean {
    if (++this.#index >= this.sorted.length) return false;
    const term = this.sorted[this.#index]!;
    this.keyLength = encodeKey(term, this.key);
    this.#list = this.lists.get(term)!;
    return true;
  }

  forEachPosting(visit: (doc: number, frequency: number) => void): void {
    this.segment.forEachPosting(this.#list, visit);
  }
}

/** The first place in `sorted` whose string is not below `key`. */
function lowerBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < key) low = middle + 1;
    else high = middle;
  }
  return low;
}
