import { existsSync } from 'node:fs';
import { copyRepository } from '../../src/copy-repository.js';
import type { Repository } from '../../src/ports.js';
import type { Command } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { describeStore, openStore, sameStore, storeLocation } from './store-location.js';

/**
 * `store copy`: every record of one store into another, folder or PostgreSQL either way, through
 * `copyRepository`. A record the target holds exactly is left alone, so a second run writes nothing.
 */
export const storeCopy: Command = {
  path: ['store', 'copy'],
  summary: 'Copies every record from one store to another (a data folder or a PostgreSQL database).',
  flags: {
    from: { type: 'string', value: 'DIR|URL', description: 'the store to read: a data folder, or postgres://… (required)' },
    to: {
      type: 'string',
      value: 'DIR|URL',
      description: 'the store to write: a data folder (made if missing), or postgres://… (required)',
    },
    'from-schema': { type: 'string', value: 'S', description: "--from's schema (default conversation_model_service)" },
    'to-schema': { type: 'string', value: 'S', description: "--to's schema (default conversation_model_service)" },
  },
  details: `Records, links and annotations move with their ids; a record the target holds already and
differently is replaced; records only the target holds stay. Run it again to finish a copy that
stopped: a second run writes nothing.
Copy from a store nothing writes meanwhile: a data folder a running server holds is refused (stop the
server first), and a database's servers should be stopped. A folder is opened through its lock.
Examples:
  conversation-model-service store copy --from ./data --to postgres://me@127.0.0.1:5432/app
  conversation-model-service store copy --from postgres://me@127.0.0.1:5432/app --to ./data-back`,
  async run({ strings }) {
    if (strings.from === undefined) throw new UsageError('store copy needs --from');
    if (strings.to === undefined) throw new UsageError('store copy needs --to');
    const from = storeLocation(strings.from, strings['from-schema'], '--from');
    const to = storeLocation(strings.to, strings['to-schema'], '--to');
    if (sameStore(from, to)) throw new UsageError(`--from and --to are one store (${describeStore(from)}): nothing to copy`);
    // A folder that is not there holds nothing: opening it would make an empty store and copy nothing, silently.
    if (from.kind === 'folder' && !existsSync(from.folder)) throw new CommandFailure(`There is no data folder ${from.folder}.`);
    const advice = ' (a server on it, say), then copy again.';
    // Read only: a schema that holds no store is an error, not one to create.
    const source = await openStore(from, { folderInUseAdvice: advice, mustExist: true });
    let target: Repository | undefined;
    try {
      target = await openStore(to, { folderInUseAdvice: advice });
      const report = await copyRepository(source, target);
      let written = 0;
      let unchanged = 0;
      for (const [collection, counts] of Object.entries(report)) {
        written += counts.written;
        unchanged += counts.unchanged;
        console.log(`${collection}: ${counts.written} written, ${counts.unchanged} unchanged`);
      }
      console.log(
        `Copied ${written + unchanged} records from ${describeStore(from)} to ${describeStore(to)}: ${written} written, ${unchanged} unchanged.`,
      );
    } finally {
      await target?.close();
      await source.close();
    }
  },
};

/** `store`: commands on a store itself, with no server running. */
export const store: Command = {
  path: ['store'],
  summary: 'Works on a store itself (copy between a data folder and PostgreSQL).',
  commands: [storeCopy],
  async run() {
    throw new UsageError('store needs a command: copy');
  },
};
