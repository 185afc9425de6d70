import type { Repository, TextSearch, Transaction } from '../ports.js';
import type { RecordChange } from './record-docs.js';
import { SearchIndex } from './search-index.js';
import { TextIndex } from './text-index.js';

/**
 * `repository` with full-text search: itself when it keeps an index (`repository.search`), else
 * wrapped with an index in memory, built by reading every record once at the first search (in a
 * transaction, so no write lands mid-read) and updated from every transaction committed through
 * the wrapper after that. Writes made to the store by anything other than this wrapper are not seen.
 */
export function withSearch(repository: Repository): Repository & { readonly search: TextSearch } {
  if (repository.search) return repository as Repository & { search: TextSearch };
  const index = new SearchIndex();
  let built: Promise<void> | undefined;
  const ready = () => {
    built ??= repository
      .transact((tx) => {
        // A store may run this more than once (see Repository.transact): each run starts from an
        // empty index, so what a failed run indexed is not kept. Nothing searches it meanwhile
        // (searches wait for `built`), and writes committed meanwhile are applied after it.
        index.index = new TextIndex();
        return index.build(tx);
      })
      .catch((error: unknown) => {
        // Tried again at the next search, from scratch.
        built = undefined;
        index.index = new TextIndex();
        throw error;
      });
    return built;
  };
  return {
    read: (fn) => repository.read(fn),
    async transact(fn) {
      let written: RecordChange[] = [];
      const result = await repository.transact(async (tx) => {
        const recorder = recording(tx);
        const answer = await fn(recorder.tx);
        written = recorder.changes();
        return answer;
      });
      // Committed: nothing after this may fail the write. An index still being built reads it
      // (the build runs in a transaction queued before or after this one); one that failed is built again.
      const building = built;
      if (
        building &&
        (await building.then(
          () => true,
          () => false,
        )) &&
        built === building
      )
        index.apply(written);
      return result;
    },
    close: () => repository.close(),
    search: {
      async searchMessages(query) {
        await ready();
        return index.searchMessages(query);
      },
      async searchConversations(query) {
        await ready();
        return index.searchConversations(query);
      },
      watch: (listener) => index.watch(listener),
      documents: async () => {
        await ready();
        return index.documents();
      },
      postings: async (words) => {
        await ready();
        return index.postings(words);
      },
    },
  };
}

/** A transaction that remembers what it writes: the last write of each record. */
function recording(tx: Transaction): { tx: Transaction; changes(): RecordChange[] } {
  const writes = new Map<string, RecordChange>();
  const recorder: Transaction = {
    get: (collection, id) => tx.get(collection, id),
    getMany: (collection, ids) => tx.getMany(collection, ids),
    list: (collection, page) => tx.list(collection, page),
    count: (collection) => tx.count(collection),
    versions: (collection, ids) => tx.versions(collection, ids),
    put(collection, record) {
      tx.put(collection, record);
      writes.set(`${collection}\u0000${record.id}`, { collection, id: record.id, record });
    },
    delete(collection, id) {
      tx.delete(collection, id);
      writes.set(`${collection}\u0000${id}`, { collection, id, record: null });
    },
  };
  return { tx: recorder, changes: () => [...writes.values()] };
}
