import type { ChangeBatch, ChangeFeed } from '../ports.js';
import { type IdChange, isStreamCollection, type StreamCollection } from './identifiers.js';

/** What the hub feeds: a stream's {@link PendingStream.push}. */
export interface ChangeSink {
  push(changes: readonly IdChange[]): void;
}

/**
 * The one subscription to a store's change feed that every stream of a service shares: held while
 * at least one stream is open. The feed calls it from the store's commit path, so it only notes
 * the ids and hands them to the streams on the next turn of the event loop: a write never waits
 * for its readers, however many.
 */
export class StreamHub {
  readonly #sinks = new Map<StreamCollection, Set<ChangeSink>>();
  #queued = new Map<StreamCollection, IdChange[]>();
  #flushing: NodeJS.Immediate | undefined;
  #unsubscribe: (() => void) | undefined;
  #count = 0;

  constructor(private readonly feed: ChangeFeed) {}

  /**
   * Feeds `sink` the changes of `collection` committed from now on (and possibly some shortly
   * before, see `ChangeFeed.subscribe`). Answers the function that stops it.
   */
  add(collection: StreamCollection, sink: ChangeSink): () => void {
    let sinks = this.#sinks.get(collection);
    if (!sinks) this.#sinks.set(collection, (sinks = new Set()));
    sinks.add(sink);
    this.#count++;
    this.#unsubscribe ??= this.feed.subscribe(this.#take);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      sinks.delete(sink);
      if (--this.#count === 0) {
        this.#unsubscribe?.();
        this.#unsubscribe = undefined;
      }
    };
  }

  /** Open streams, of every collection. */
  get size(): number {
    return this.#count;
  }

  readonly #take = (batch: ChangeBatch): void => {
    // A conversation's answer shows its messages' text: a message changed in place (its value
    // updated) changes its conversation too, though the conversation's record is not rewritten.
    let conversations: Set<string> | undefined;
    for (const change of batch.changes) {
      if (change.collection === 'conversations') (conversations ??= new Set()).add(change.id);
    }
    for (const change of batch.changes) {
      this.#note(change.collection, change.id, change.record === null);
      const conversation =
        change.collection === 'messages' ? (change.record as { conversation?: unknown } | null)?.conversation : undefined;
      if (typeof conversation === 'string' && !conversations?.has(conversation)) {
        (conversations ??= new Set()).add(conversation);
        this.#note('conversations', conversation, false);
      }
    }
    if (this.#queued.size > 0) this.#flushing ??= setImmediate(this.#flush);
  };

  #note(collection: string, id: string, deleted: boolean): void {
    if (!isStreamCollection(collection) || !this.#sinks.get(collection)?.size) return;
    let queued = this.#queued.get(collection);
    if (!queued) this.#queued.set(collection, (queued = []));
    queued.push({ id, deleted });
  }

  /** Hands the changes noted so far to the streams now, rather than on the next turn. */
  flush(): void {
    if (this.#flushing) clearImmediate(this.#flushing);
    this.#flush();
  }

  readonly #flush = (): void => {
    this.#flushing = undefined;
    const queued = this.#queued;
    this.#queued = new Map();
    for (const [collection, changes] of queued) {
      for (const sink of this.#sinks.get(collection) ?? []) sink.push(changes);
    }
  };
}
