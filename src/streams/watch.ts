import { ServiceError } from '../errors.js';
import type { ChangeFeed, Repository } from '../ports.js';
import { type IdentifierStream, PendingStream, WATCH_DEFAULTS, type WatchOptions } from './identifier-stream.js';
import { STREAM_COLLECTIONS, type StreamCollection } from './identifiers.js';
import { StreamHub } from './stream-hub.js';

/** Ids read per page for a first frame: a bounded read at a time, however large the collection. */
const IDS_PER_READ = 1_000;

/** What {@link createWatcher} reads from. */
export interface WatchSources {
  readonly repository: Repository & { readonly changes: ChangeFeed };
  /** Every model id the service lists (built-in, offered by runtimes, custom): the models stream's first frame. */
  readonly modelIds: () => Promise<string[]>;
}

/** `service.watch()` and what the service's `close()` ends. */
export interface Watcher {
  watch(options: StreamCollection | WatchOptions): IdentifierStream;
  /** Open streams. */
  readonly size: number;
  /** Ends every open stream (their readers see `done`). */
  close(): void;
}

/**
 * The service's `watch()`: every stream it opens shares one subscription to the store's change feed
 * (held while one is open), and each reads its first frame's ids a page at a time.
 */
export function createWatcher(sources: WatchSources): Watcher {
  const hub = new StreamHub(sources.repository.changes);
  const open = new Set<PendingStream>();
  let closed = false;

  const readIds = async (collection: StreamCollection): Promise<string[]> => {
    if (collection === 'models') return sources.modelIds();
    const ids: string[] = [];
    let after: string | undefined;
    do {
      const page = await sources.repository.read((view) => view.list(collection, { limit: IDS_PER_READ, ...(after ? { after } : {}) }));
      for (const record of page.records) ids.push(record.id);
      after = page.next;
    } while (after !== undefined);
    return ids;
  };

  /**
   * The ids of the first frame. The store's feed may deliver again, to a new subscriber, batches
   * committed shortly before it subscribed (see `ChangeFeed.subscribe`): what it delivered until it
   * caught up was committed before the ids are read, so the read holds it, and it is dropped.
   */
  const firstIds = async (collection: StreamCollection, stream: PendingStream): Promise<string[]> => {
    await sources.repository.changes.caughtUp();
    hub.flush();
    stream.discardPending();
    return readIds(collection);
  };

  return {
    watch(input) {
      const { collection, maxPendingIds, signal } = parseWatchOptions(input);
      if (closed) throw new ServiceError('UNPROCESSABLE', 'The service is closed: it has no changes to stream.');
      let remove = () => {};
      const stream = new PendingStream(collection, maxPendingIds, () => {
        open.delete(stream);
        remove();
        signal?.removeEventListener('abort', stop);
      });
      const stop = () => void stream.return();
      open.add(stream);
      // Subscribed before the ids are read: a write committed meanwhile is read, or delivered, or both.
      remove = hub.add(collection, stream);
      if (signal?.aborted) stop();
      signal?.addEventListener('abort', stop, { once: true });
      firstIds(collection, stream).then(
        (ids) => stream.start(ids),
        (error: unknown) => stream.fail(error),
      );
      return stream;
    },
    get size() {
      return open.size;
    },
    close() {
      closed = true;
      for (const stream of [...open]) void stream.return();
    },
  };
}

function parseWatchOptions(input: StreamCollection | WatchOptions): Required<Omit<WatchOptions, 'signal'>> & Pick<WatchOptions, 'signal'> {
  const options: WatchOptions = typeof input === 'string' ? { collection: input } : (input ?? ({} as WatchOptions));
  if (!STREAM_COLLECTIONS.includes(options.collection)) {
    throw new ServiceError('INVALID_INPUT', `Only ${STREAM_COLLECTIONS.join(', ')} can be watched, not "${String(options.collection)}".`, {
      issues: [{ path: ['collection'], message: `One of ${STREAM_COLLECTIONS.join(', ')}.` }],
    });
  }
  const maxPendingIds = options.maxPendingIds ?? WATCH_DEFAULTS.maxPendingIds;
  if (!Number.isSafeInteger(maxPendingIds) || maxPendingIds < 1) {
    throw new ServiceError('INVALID_INPUT', 'maxPendingIds must be a positive whole number.', {
      issues: [{ path: ['maxPendingIds'], message: 'A positive whole number.' }],
    });
  }
  return { collection: options.collection, maxPendingIds, ...(options.signal ? { signal: options.signal } : {}) };
}
