import { MutableSegment } from './mutable-segment.js';
import { mergeRuns, type TermRun } from './segment-merge.js';
import { decodeKey, encodeKey, MAX_KEY_BYTES, startsWithKey } from './term-keys.js';
import type { SegmentCursor, TermSegment } from './term-segment.js';

/** A term's postings in the dictionary: its lists in each part that holds it, in document order. */
export class TermPostings {
  constructor(
    readonly parts: readonly (TermSegment | MutableSegment)[],
    readonly refs: readonly number[],
    /** Postings (documents dead since included, until a merge drops them). */
    readonly count: number,
  ) {}

  /** Calls `visit` with each posting, in document order. */
  forEach(visit: (doc: number, frequency: number) => void): void {
    for (let i = 0; i < this.parts.length; i++) this.parts[i]!.forEachPosting(this.refs[i]!, visit);
  }
}

/** When the mutable segment is flushed into an immutable one (see {@link TermDictionary}). */
export interface FlushLimits {
  /** Terms it holds. Default 65,536: about 7 MB of strings, Map entries and pool. */
  readonly terms?: number;
  /** Postings it holds. Default 2,097,152: about 6 MB of pool. */
  readonly postings?: number;
}

/**
 * The index's terms and postings: a few immutable segments (term-segment.ts), oldest first, and a
 * mutable segment taking the latest writes (mutable-segment.ts). Each part holds documents above
 * those of the parts before it, so a term's postings are its lists in each part, one after the
 * other. Once the mutable segment grows past its limits it is frozen (still read) while a new one
 * takes the writes, and written into a new segment, a step at a time; segments of similar size are
 * then merged, as a log-structured merge does, so there are a few of them and each posting is
 * rewritten a few times at most. Merges drop the postings of dead documents.
 */
export class TermDictionary {
  #segments: TermSegment[];
  /** The mutable segment being written into a segment, if one is. */
  #frozen: MutableSegment | undefined;
  #mutable: MutableSegment;
  readonly #limits: Required<FlushLimits>;
  readonly #key = new Uint8Array(MAX_KEY_BYTES);

  constructor(segments: readonly TermSegment[] = [], nextDoc = 0, limits: FlushLimits = {}) {
    this.#segments = segments.filter((segment) => segment.terms > 0);
    this.#mutable = new MutableSegment(nextDoc);
    this.#limits = { terms: limits.terms ?? 1 << 16, postings: limits.postings ?? 1 << 21 };
  }

  /** The immutable segments, oldest first (what the index file holds once the rest is flushed). */
  get segments(): readonly TermSegment[] {
    return this.#segments;
  }

  /** Whether every term is in one immutable segment (nothing in a mutable one). */
  get single(): boolean {
    return this.#segments.length <= 1 && !this.#frozen && this.#mutable.terms === 0;
  }

  /** Whether the mutable segment has grown past its limits: time to {@link freeze} it. */
  get flushDue(): boolean {
    return this.#mutable.terms >= this.#limits.terms || this.#mutable.postings >= this.#limits.postings;
  }

  /** Whether a frozen mutable segment waits to be written. */
  get frozen(): boolean {
    return this.#frozen !== undefined;
  }

  /** Bytes it holds: its segments', and its mutable ones' at their usual cost in V8. */
  get bytes(): number {
    let bytes = this.#mutable.bytes + (this.#frozen?.bytes ?? 0);
    for (const segment of this.#segments) bytes += segment.byteLength;
    return bytes;
  }

  /** The list in the mutable segment of `term`, made if it has none: where a new document's postings go. */
  listOf(term: string): number {
    return this.#mutable.listOf(term);
  }

  /** Appends to a list of the mutable segment (see {@link listOf}): document `doc`, above all it holds, has the term `frequency` times. */
  add(list: number, doc: number, frequency: number): void {
    this.#mutable.add(list, doc, frequency);
  }

  /** The postings of `term`, or undefined when no part holds it. */
  find(term: string): TermPostings | undefined {
    if (term.length * 3 > MAX_KEY_BYTES) return undefined;
    const keyLength = encodeKey(term, this.#key);
    let parts: (TermSegment | MutableSegment)[] | undefined;
    let refs: number[] | undefined;
    let count = 0;
    const found = (part: TermSegment | MutableSegment, ref: number, n: number) => {
      (parts ??= []).push(part);
      (refs ??= []).push(ref);
      count += n;
    };
    for (const segment of this.#segments) {
      const ref = segment.find(this.#key, keyLength);
      if (ref >= 0) found(segment, ref, segment.count(ref));
    }
    for (const mutable of this.#mutables()) {
      const list = mutable.find(term);
      if (list !== undefined) found(mutable, list, mutable.count(list));
    }
    return parts ? new TermPostings(parts, refs!, count) : undefined;
  }

  /**
   * Each term that starts with `prefix`, and its postings, in order: the parts' terms merged as
   * they are read, so a reader that stops early (or pauses between two) costs what it read.
   */
  *termsWithPrefix(prefix: string): Generator<[term: string, postings: TermPostings]> {
    if (prefix.length * 3 > MAX_KEY_BYTES) return;
    // A key of its own: the generator may pause while other lookups use the dictionary's.
    const key = new Uint8Array(MAX_KEY_BYTES);
    const keyLength = encodeKey(prefix, key);
    const streams: PrefixStream[] = [];
    for (const segment of this.#segments) {
      const stream = new SegmentStream(segment.seek(key, keyLength), key, keyLength);
      if (stream.next()) streams.push(stream);
    }
    for (const mutable of this.#mutables()) {
      const stream = new MutableStream(mutable, prefix);
      if (stream.next()) streams.push(stream);
    }
    while (streams.length > 0) {
      let least = streams[0]!;
      for (const stream of streams) if (stream.term < least.term) least = stream;
      const term = least.term;
      const parts: (TermSegment | MutableSegment)[] = [];
      const refs: number[] = [];
      let count = 0;
      // Streams are in document order (segments, then the frozen and the mutable one).
      for (let i = 0; i < streams.length; i++) {
        const stream = streams[i]!;
        if (stream.term !== term) continue;
        parts.push(stream.part);
        refs.push(stream.ref);
        count += stream.count;
        if (!stream.next()) streams.splice(i--, 1);
      }
      yield [term, new TermPostings(parts, refs, count)];
    }
  }

  /**
   * Freezes the mutable segment (still read until it is written) and starts a new one for
   * documents from `nextDoc` on. Its list numbers start again: whoever remembers them forgets them.
   */
  freeze(nextDoc: number): void {
    if (this.#frozen) throw new Error('A frozen segment is still being written.');
    this.#frozen = this.#mutable;
    this.#mutable = new MutableSegment(nextDoc);
  }

  /**
   * Writes the frozen segment into a new immutable one, then merges the newest segments while the
   * last is at least half the size of the one before (a step at a time; see segment-merge.ts).
   * `mapDoc` answers -1 for a dead document, whose postings are dropped, or the document itself.
   */
  *flush(mapDoc: (doc: number) => number): Generator<void, void> {
    const frozen = this.#frozen;
    if (frozen) {
      const segment = yield* mergeRuns([frozen.cursor()], mapDoc, frozen.postings * 3 + frozen.terms * 8);
      if (segment.terms > 0) this.#segments = [...this.#segments, segment];
      this.#frozen = undefined;
    }
    for (;;) {
      const segments = this.#segments;
      const n = segments.length;
      if (n < 2 || segments[n - 1]!.byteLength * 2 < segments[n - 2]!.byteLength) return;
      const tail = segments.slice(n - 2);
      const merged = yield* mergeSegments(tail, mapDoc);
      // Segments are only replaced here, one merge at a time: the tail is still the same two.
      this.#segments = [...this.#segments.slice(0, n - 2), ...(merged.terms > 0 ? [merged] : [])];
    }
  }

  /**
   * Every segment and the frozen one (freeze first) merged into one segment whose documents are
   * renumbered by `mapDoc` (-1: dropped), not yet in use: {@link adopt} puts it in place once the
   * documents' tables are renumbered too.
   */
  *compacted(mapDoc: (doc: number) => number): Generator<void, TermSegment> {
    const runs: TermRun[] = this.#segments.map((segment) => segment.seek());
    let capacity = this.#segments.reduce((sum, segment) => sum + segment.bytes.length, 0);
    if (this.#frozen) {
      runs.push(this.#frozen.cursor());
      capacity += this.#frozen.postings * 3 + this.#frozen.terms * 8;
    }
    return yield* mergeRuns(runs, mapDoc, capacity);
  }

  /**
   * Puts a {@link compacted} segment in place of every segment and the frozen one; the mutable
   * segment's documents now count from `mutableBase` (they were renumbered with the rest).
   */
  adopt(segment: TermSegment, mutableBase: number): void {
    this.#segments = segment.terms > 0 ? [segment] : [];
    this.#frozen = undefined;
    this.#mutable.base = mutableBase;
  }

  #mutables(): MutableSegment[] {
    return this.#frozen ? [this.#frozen, this.#mutable] : [this.#mutable];
  }
}

function mergeSegments(segments: readonly TermSegment[], mapDoc: (doc: number) => number): Generator<void, TermSegment> {
  return mergeRuns(
    segments.map((segment) => segment.seek()),
    mapDoc,
    segments.reduce((sum, segment) => sum + segment.bytes.length, 0),
  );
}

/** One part's terms with a prefix, as {@link TermDictionary.forEachWithPrefix} merges them. */
interface PrefixStream {
  readonly part: TermSegment | MutableSegment;
  term: string;
  ref: number;
  count: number;
  next(): boolean;
}

class SegmentStream implements PrefixStream {
  term = '';
  ref = -1;
  count = 0;

  constructor(
    private readonly cursor: SegmentCursor,
    private readonly prefix: Uint8Array,
    private readonly prefixLength: number,
  ) {}

  get part(): TermSegment {
    return this.cursor.segment;
  }

  next(): boolean {
    const cursor = this.cursor;
    if (!cursor.next() || !startsWithKey(cursor.key, cursor.keyLength, this.prefix, this.prefixLength)) return false;
    this.term = decodeKey(cursor.key, 0, cursor.keyLength);
    this.ref = cursor.ref;
    this.count = cursor.segment.count(cursor.ref);
    return true;
  }
}

class MutableStream implements PrefixStream {
  term = '';
  ref = -1;
  count = 0;
  readonly #found: [string, number][] = [];
  #at = 0;

  constructor(
    readonly part: MutableSegment,
    prefix: string,
  ) {
    part.forEachWithPrefix(prefix, (term, list) => this.#found.push([term, list]) > 0);
  }

  next(): boolean {
    const found = this.#found[this.#at++];
    if (!found) return false;
    [this.term, this.ref] = found;
    this.count = this.part.count(this.ref);
    return true;
  }
}
