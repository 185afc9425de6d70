import type { ChangeFeed, Repository, TextSearch } from '../ports.js';
import { ChangeEmitter } from '../stores/change-emitter.js';
import { withChangeFeed } from '../stores/recorded-changes.js';
import { FeedSearch } from './feed-search.js';

/** A repository with full-text search and a change feed: what the service works on. */
export type SearchableRepository = Repository & { readonly search: TextSearch; readonly changes: ChangeFeed };

/**
 * `repository` with full-text search and a change feed. Its own when it has them; else a feed of
 * the transactions made through the wrapper (see `withChangeFeed`), and an index in memory
 * (`FeedSearch`), built at the first search and kept up to date from the feed, so it holds the
 * writes of every process that shares a store with a feed of its own. The feed answered delivers
 * each batch once the index has taken it: what follows it (vectors of meaning) never sees a write
 * the index does not hold.
 */
export function withSearch(repository: Repository, logger: { warn(message: string): void } = console): SearchableRepository {
  const fed = withChangeFeed(repository);
  if (fed.search) return fed as SearchableRepository;
  // Relayed with the store's positions: after the index, in the same order.
  const relay = new ChangeEmitter((error) => logger.warn(`A change feed listener failed: ${(error as Error)?.message ?? error}`));
  const search = new FeedSearch(fed, fed.changes, (batch) => relay.emit(batch.changes, batch.seq), logger);
  const changes: ChangeFeed = {
    subscribe: (listener) => relay.subscribe(listener),
    caughtUp: () => fed.changes.caughtUp(),
  };
  return {
    read: (fn) => fed.read(fn),
    transact: (fn) => fed.transact(fn),
    close: async () => {
      search.close();
      await fed.close();
    },
    ...(fed.health ? { health: () => fed.health!() } : {}),
    search,
    changes,
  };
}
