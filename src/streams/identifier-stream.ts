import { ServiceError } from '../errors.js';
import { frameOf, type IdChange, type StreamCollection, type StreamedIdentifiers } from './identifiers.js';

/** What `service.watch()` takes: the collection, and how far its reader may fall behind. */
export interface WatchOptions {
  readonly collection: StreamCollection;
  /**
   * Most ids that may wait for the reader (changes of one id while it waits count once). Past it
   * the stream ends with ServiceError `TOO_SLOW` and what waited is freed: read again from a new
   * `watch()`, whose first frame holds every id. One batch (a transaction's writes) arriving while
   * nothing waits is taken whole, however large. Default {@link WATCH_DEFAULTS}`.maxPendingIds`.
   */
  readonly maxPendingIds?: number;
  /** Ends the stream (as `return()` does) when aborted. */
  readonly signal?: AbortSignal;
}

/** The defaults of {@link WatchOptions}. */
export const WATCH_DEFAULTS = {
  /** About 0.5 MiB of waiting ids per reader at most, and more than one create can write (20,000 messages). */
  maxPendingIds: 25_000,
} as const;

/**
 * The frames of one collection's ids, as an async iterator: first every id, then what was created,
 * changed or deleted, each frame sent after its writes are stored. `return()` (a `break` out of
 * `for await`) stops it and frees what it holds.
 */
export interface IdentifierStream extends AsyncIterableIterator<StreamedIdentifiers, undefined> {
  /** Ends the stream: a `next()` waiting then, and every one after, answers `done`. */
  return(): Promise<IteratorResult<StreamedIdentifiers, undefined>>;
  /**
   * Resolves when the stream ends: with undefined once `return()` was called (or the service closed),
   * with the error that ended it otherwise (`TOO_SLOW`, or why its first frame could not be read).
   * Never rejects.
   */
  readonly ended: Promise<unknown>;
}

type Waiter = {
  resolve: (result: IteratorResult<StreamedIdentifiers, undefined>) => void;
  reject: (error: unknown) => void;
};

/**
 * A stream's frames in waiting: the first (every id), then the changes since the last frame taken,
 * coalesced by id in one map bounded by `maxPendingIds`. Fed by the hub ({@link push}) and by the
 * read of every id ({@link start}); read as an async iterator.
 */
export class PendingStream implements IdentifierStream {
  #first: StreamedIdentifiers | undefined;
  #started = false;
  /** id → deleted, in the order of each id's last change. */
  #pending = new Map<string, boolean>();
  #waiter: Waiter | undefined;
  /** Set once it ended by failing, until a `next()` has thrown it. */
  #error: unknown;
  #done = false;
  #resolveEnded!: (reason: unknown) => void;
  readonly ended = new Promise<unknown>((resolve) => {
    this.#resolveEnded = resolve;
  });

  constructor(
    private readonly collection: StreamCollection,
    private readonly maxPendingIds: number,
    private readonly onEnd: () => void,
  ) {}

  /** The first frame: every id the collection held when read (after this stream was subscribed). */
  start(ids: readonly string[]): void {
    if (this.#done) return;
    this.#first = frameOf(
      this.collection,
      ids.map((id) => ({ id, deleted: false })),
    );
    this.#started = true;
    this.#deliver();
  }

  /** Forgets the changes pushed so far, before the first frame: those the first frame's read will hold. */
  discardPending(): void {
    if (!this.#started) this.#pending = new Map();
  }

  /** Changes of the collection's ids, in commit order. */
  push(changes: readonly IdChange[]): void {
    if (this.#done) return;
    const hadPending = this.#pending.size > 0;
    for (const { id, deleted } of changes) {
      // Deleted and set again: the map's order is that of each id's last change.
      this.#pending.delete(id);
      this.#pending.set(id, deleted);
    }
    if (this.#deliver()) return;
    if (hadPending && this.#pending.size > this.maxPendingIds) {
      this.fail(
        new ServiceError(
          'TOO_SLOW',
          `The ${this.collection} stream's reader fell more than ${this.maxPendingIds} ids behind and was dropped; watch again for a fresh list.`,
          { limit: this.maxPendingIds },
        ),
      );
    }
  }

  /** Ends the stream with `error`: the next `next()` throws it, and what waited is freed. */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#error = error;
    this.#end(error);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) {
      this.#error = undefined;
      waiter.reject(error);
    }
  }

  next(): Promise<IteratorResult<StreamedIdentifiers, undefined>> {
    if (this.#waiter) return Promise.reject(new Error('A stream is read by one reader: wait for its next() before calling it again.'));
    const frame = this.#take();
    if (frame) return Promise.resolve({ value: frame, done: false });
    if (this.#error !== undefined) {
      const error = this.#error;
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<StreamedIdentifiers, undefined>> {
    this.#error = undefined;
    this.#end(undefined);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next frame, if one is ready. */
  #take(): StreamedIdentifiers | undefined {
    if (this.#first) {
      const first = this.#first;
      this.#first = undefined;
      return first;
    }
    if (!this.#started || this.#pending.size === 0) return undefined;
    const pending = this.#pending;
    this.#pending = new Map();
    return frameOf(
      this.collection,
      Array.from(pending, ([id, deleted]) => ({ id, deleted })),
    );
  }

  /** Hands a ready frame to a waiting reader; answers whether it did. */
  #deliver(): boolean {
    if (!this.#waiter) return false;
    const frame = this.#take();
    if (!frame) return false;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter.resolve({ value: frame, done: false });
    return true;
  }

  #end(reason: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#first = undefined;
    this.#pending = new Map();
    this.onEnd();
    this.#resolveEnded(reason);
  }
}
