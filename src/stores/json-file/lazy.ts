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
 * A Repository kept in a JSON snapshot, a journal and message files (see the store's own
 * `createJsonFileRepository` in `./index.ts`, whose options and behaviour these are). The store's
 * code is loaded on the first call.
 */
export async function createJsonFileRepository(options: JsonFileRepositoryOptions): Promise<Repository> {
  const store = await import('./index.js');
  return store.createJsonFileRepository(options);
}
