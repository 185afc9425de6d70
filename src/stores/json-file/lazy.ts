import type { Repository } from '../../ports.js';
import type { JsonFileRepositoryOptions } from './index.js';

/**
 * What the root entry point exports of the JSON-file store: the store itself (`./index.ts`, with
 * lowdb, the journal and the message files) is imported on the first call, so that importing the
 * package costs nothing for a caller that brings its own `Repository` or keeps data in memory.
 */
export { JSON_FILE_FORMAT_VERSION } from './format-version.js';
export type { JsonFileRepositoryOptions } from './index.js';

/**
 * A Repository kept in a JSON snapshot, an append-only journal and message files. Conversations,
 * their links and the other small records are held in memory; messages stay on disk, found
 * through an index of where each one is (the keydir), and are read when asked for. A transaction
 * appends one journal line (group-committed with concurrent ones), so its cost does not grow with
 * the data; the journal is folded into the snapshot, and its messages copied into a message file,
 * in the background and at close. One process at a time may open a data file: a second one fails
 * naming the holder. The store's code is loaded on the first call.
 */
export async function createJsonFileRepository(options: JsonFileRepositoryOptions): Promise<Repository> {
  const store = await import('./index.js');
  return store.createJsonFileRepository(options);
}
