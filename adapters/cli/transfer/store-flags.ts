import type { Repository } from '../../../src/ports.js';
import type { CommandInput, FlagSpec } from '../command.js';
import { UsageError } from '../failures.js';
import { SERVER_FLAGS } from '../models/server-flags.js';
import { databaseLocation, openStore, type StoreLocation, storeLocation } from '../store-location.js';

/** The flags of export and import: a running server (the default), or a stopped store opened here. */
export const TRANSFER_FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...SERVER_FLAGS,
  'data-dir': {
    type: 'string',
    value: 'DIR',
    description: 'work on this data folder directly, with no server (one running on it is refused)',
  },
  'database-url': { type: 'string', value: 'URL', description: 'work on this PostgreSQL database directly, with no server' },
  'database-schema': { type: 'string', value: 'S', description: "--database-url's schema (default conversation_model_service)" },
};

/** Where the command works: on the store the flags name, or (undefined) through the server. */
export function directStore(input: CommandInput): StoreLocation | undefined {
  const { strings } = input;
  if (strings['data-dir'] !== undefined && strings['database-url'] !== undefined)
    throw new UsageError('give --data-dir or --database-url, not both');
  const direct = strings['data-dir'] !== undefined || strings['database-url'] !== undefined;
  if (direct && (strings.url !== undefined || strings.host !== undefined || strings.port !== undefined)) {
    throw new UsageError('--data-dir and --database-url work without a server: leave out --url, --host and --port');
  }
  if (strings['database-url'] !== undefined) return databaseLocation(strings['database-url'], strings['database-schema'], '--database-url');
  if (strings['database-schema'] !== undefined) throw new UsageError('--database-schema needs --database-url');
  if (strings['data-dir'] !== undefined) return storeLocation(strings['data-dir'], undefined, '--data-dir');
  return undefined;
}

/** Opens the store for the command, runs `work` on it, and closes it. */
export async function withStore<T>(location: StoreLocation, mustExist: boolean, work: (repository: Repository) => Promise<T>): Promise<T> {
  const repository = await openStore(location, { folderInUseAdvice: ', or leave out --data-dir to go through its server.', mustExist });
  try {
    return await work(repository);
  } finally {
    await repository.close();
  }
}
