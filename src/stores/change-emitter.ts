import type { ChangeBatch, ChangeFeed, LocalFeed, RecordChange } from '../ports.js';

type Listener = (batch: ChangeBatch) => void;

/**
 * A {@link ChangeFeed} that a store feeds itself, from its commit path: {@link emit} delivers one
 * committed transaction's writes to every listener at once, in the order they subscribed. For a
 * store in one process (every write it delivers is its own, so {@link caughtUp} resolves at once);
 * a store shared by processes delivers through one too, and answers `caughtUp` itself.
 */
export class ChangeEmitter implements ChangeFeed {
  #seq = 0;
  /** Replaced, never changed, on (un)subscribing: a delivery goes through the listeners of its start. */
  #listeners: readonly Listener[] = [];

  /**
   * @param report Where what a listener throws goes (the write is committed: it is not failed by
   *   it). Default: `console.error`.
   */
  /** Present when constructed with `local` (see {@link ChangeFeed.local}). */
  readonly local?: LocalFeed;
  #undoneListeners: readonly (() => void)[] = [];

  /**
   * @param report Where what a listener throws goes (the write is committed: it is not failed by
   *   it). Default: `console.error`.
   * @param options `local`: the store is this process's alone and emits every transaction before
   *   its `transact` resolves (and calls {@link undone} when it undoes writes reads could see).
   */
  constructor(
    private readonly report: (error: unknown) => void = (error) => console.error('A change feed listener failed:', error),
    options: { readonly local?: boolean } = {},
  ) {
    if (options.local) {
      this.local = {
        onUndone: (listener) => {
          const own = () => listener();
          this.#undoneListeners = [...this.#undoneListeners, own];
          return () => {
            this.#undoneListeners = this.#undoneListeners.filter((other) => other !== own);
          };
        },
      };
    }
  }

  /** Tells the {@link LocalFeed.onUndone} listeners that writes reads could see were undone. */
  undone(): void {
    for (const listener of this.#undoneListeners) {
      try {
        listener();
      } catch (error) {
        this.report(error);
      }
    }
  }

  /** The position of the last batch delivered; 0 before the first. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * Delivers a committed transaction's writes as the next batch, numbered `seq` (default: one past
   * the last), and answers its number; nothing for a transaction that wrote nothing. Call it after
   * the commit, in commit order, with each record once (`bufferedTransaction`'s `changes()`).
   * Throws a RangeError, delivering nothing, for a `seq` not past the last one.
   */
  emit(changes: readonly RecordChange[], seq = this.#seq + 1): number | undefined {
    if (changes.length === 0) return undefined;
    if (!(Number.isSafeInteger(seq) && seq > this.#seq))
      throw new RangeError(`A change batch must be numbered past ${this.#seq}, not ${seq}.`);
    this.#seq = seq;
    const batch: ChangeBatch = Object.freeze({ seq, changes: Object.freeze([...changes]) });
    const listeners = this.#listeners;
    for (const listener of listeners) {
      // One that stopped listening during this delivery is not called again.
      if (this.#listeners !== listeners && !this.#listeners.includes(listener)) continue;
      try {
        listener(batch);
      } catch (error) {
        this.report(error);
      }
    }
    return seq;
  }

  subscribe(listener: Listener): () => void {
    // Wrapped: the same function subscribed twice is two subscriptions, each stopped by its own call.
    const own: Listener = (batch) => listener(batch);
    this.#listeners = [...this.#listeners, own];
    return () => {
      this.#listeners = this.#listeners.filter((other) => other !== own);
    };
  }

  /** At once: every batch is delivered as it is emitted. */
  async caughtUp(): Promise<number> {
    return this.#seq;
  }
}
