import path from 'node:path';
import type { FolderInUseError } from '../../src/stores/json-file/folder-lock.js';
import { type Command, PROGRAM } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { parsePort } from './port.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './server-address.js';
import { databaseLocation, describeStore, isFolderInUse, openStore } from './store-location.js';
import { parseTrashDays } from './trash-days.js';

/** What `serve` needs beside the package: optional peer dependencies, which only it loads. */
const HTTP_PACKAGES = ['hono', '@hono/node-server'] as const;

/** Whether `name` resolves from here, as the HTTP adapter's own imports resolve it. */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The service, the HTTP server and the options read from the environment, loaded when `serve`
 * runs: the other commands (`--help`, `version`, `models …`) start faster without them, and work
 * without hono and @hono/node-server installed. Without those `serve` says, in one line, what to
 * install.
 */
async function loadServer() {
  try {
    const [core, server, environment] = await Promise.all([
      import('../../src/index.js'),
      import('../hono/serve.js'),
      import('./environment.js'),
    ]);
    return { createService: core.createService, ...server, ...environment };
  } catch (error) {
    const missingOne =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      HTTP_PACKAGES.some((name) => (error as Error).message.includes(`Cannot find package '${name}'`));
    if (!missingOne) throw error;
    const missing = HTTP_PACKAGES.filter((name) => !installed(name));
    const names = missing.length > 0 ? missing : HTTP_PACKAGES;
    throw new CommandFailure(`${PROGRAM} serve needs ${HTTP_PACKAGES.join(' and ')} installed beside it: npm install ${names.join(' ')}`);
  }
}

/** The library's message names its option (`takeOverLock: true`); the command says it with its own flags. */
const folderInUseMessage = ({ folder, holder }: FolderInUseError) =>
  `The data folder ${folder} is in use by ${holder}. Stop that process, or serve another folder with --data-dir. ` +
  'If you know nothing else uses it (a lock left by another machine, say), start again with --take-over-lock.';

/**
 * When this process runs under a wrapper (`npm start`, a process manager), a stop can reach it
 * twice: a terminal's Ctrl-C signals the whole process group (systemd's stop, every process of the
 * service), and npm passes on to its script the signal it got itself. A repeat within this time is
 * that echo, not a second request; a later one stops at once.
 */
const ECHO_MS = 1_000;

/** Stops `running` gracefully on SIGINT and SIGTERM, and at once on a second one. */
function stopOnSignals(running: { server: { close(): Promise<void> }; service: { close(): Promise<void> } }): void {
  let stoppingSince: number | undefined;
  const stop = async (signal: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < ECHO_MS) return;
      // A second signal: no more waiting for requests; the data is flushed by close() on its way out.
      console.log(`${signal} again: stopping now.`);
      await running.service.close().catch(() => undefined);
      process.exit(1);
    }
    stoppingSince = performance.now();
    console.log(`${signal}: finishing the requests under way, then stopping (again to stop at once).`);
    try {
      await running.server.close();
      await running.service.close();
    } catch (error) {
      console.error(`Stopping failed: ${(error as Error).message}`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** `serve`: the HTTP server over a data folder or a PostgreSQL database, until a signal stops it. */
export const serve: Command = {
  path: ['serve'],
  summary: 'Serves the API over HTTP (default http://127.0.0.1:39300, data in ./data or in PostgreSQL).',
  flags: {
    port: { type: 'string', short: 'p', value: 'N', description: 'the port to listen on (default: PORT, else 39300; 0 for any free one)' },
    host: { type: 'string', value: 'H', description: 'the address to listen on (default: HOST, else 127.0.0.1)' },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'the data folder (default: DATA_DIR, else ./data); with a database, the models cache',
    },
    'log-requests': { type: 'boolean', description: 'prints a line per request' },
    'take-over-lock': {
      type: 'boolean',
      description: 'takes the data folder whoever holds its lock (one left by another machine, say)',
    },
    'database-url': {
      type: 'string',
      value: 'URL',
      description: 'keeps the data in PostgreSQL, postgres://user:password@host:5432/db (default: DATABASE_URL)',
    },
    'database-schema': {
      type: 'string',
      value: 'S',
      description: 'the schema of its tables (default: DATABASE_SCHEMA, else conversation_model_service)',
    },
    'trash-days': {
      type: 'string',
      value: 'N',
      description: 'days a deleted conversation stays in the trash (default: TRASH_DAYS, else 30; 0: deletes are final)',
    },
  },
  details: `Environment: PORT, HOST, DATA_DIR, DATABASE_URL, DATABASE_SCHEMA, TRASH_DAYS (flags win), API_TOKEN (required
off loopback), ALLOWED_ORIGINS, ALLOWED_HOSTS, DOWNLOAD_ALLOWED_HOSTS, OPENAI_BASE_URL, OPENAI_API_KEY,
DEFAULT_MODEL.
Ctrl-C (SIGINT) or SIGTERM stops it gracefully; another, a second or more later, stops at once.
One process at a time uses a data folder; --take-over-lock is only for when you know nothing else
does (two servers writing one folder corrupt it). With a database (which needs the pg package),
any number of servers may share it; each keeps its own models' cache in --data-dir's models/.
An unreachable database stops serve (exit 1): it never falls back to the folder.
Needs hono and @hono/node-server installed beside the package.`,
  async run({ strings, flags }) {
    // The command line is checked before anything loads or opens: a usage error changes nothing.
    const env = process.env;
    const portText = strings.port ?? (env.PORT || undefined);
    const port = portText === undefined ? undefined : parsePort(portText, strings.port !== undefined ? '--port' : 'PORT', true);
    const trashText = strings['trash-days'] ?? (env.TRASH_DAYS || undefined);
    const trash =
      trashText === undefined ? undefined : parseTrashDays(trashText, strings['trash-days'] !== undefined ? '--trash-days' : 'TRASH_DAYS');
    // Before the data folder is opened (and made): without the HTTP packages there is nothing to serve.
    const { createService, startHttpServer, serverOptionsFrom, serviceOptionsFrom } = await loadServer();
    // An empty DATA_DIR, HOST or PORT counts as unset, as in the model commands.
    const dataDir = strings['data-dir'] ?? (env.DATA_DIR || 'data');
    const host = strings.host ?? (env.HOST || DEFAULT_HOST);
    const databaseUrl = strings['database-url'] ?? (env.DATABASE_URL || undefined);
    const schema = strings['database-schema'] ?? (env.DATABASE_SCHEMA || undefined);
    const database =
      databaseUrl === undefined
        ? undefined
        : databaseLocation(databaseUrl, schema, strings['database-url'] !== undefined ? '--database-url' : 'DATABASE_URL');
    if (database && flags.has('take-over-lock'))
      throw new UsageError('--take-over-lock is for a data folder: a database has no lock to take');
    if (!database && strings['database-schema'] !== undefined)
      throw new UsageError('--database-schema needs --database-url (or DATABASE_URL)');
    // --host counts as HOST: off loopback, downloads may not reach this machine's network.
    const serviceOptions = { ...serviceOptionsFrom({ ...env, HOST: host }, dataDir), ...(trash ? { trash } : {}) };
    let service: Awaited<ReturnType<typeof createService>>;
    if (database) {
      // The records in the database; the folder keeps only this process's models' cache.
      const repository = await openStore(database);
      try {
        service = await createService({ ...serviceOptions, repository });
      } catch (error) {
        await repository.close();
        throw error;
      }
    } else {
      try {
        service = await createService({ ...serviceOptions, ...(flags.has('take-over-lock') ? { takeOverLock: true } : {}) });
      } catch (error) {
        if (isFolderInUse(error)) throw new CommandFailure(folderInUseMessage(error));
        throw new CommandFailure(`Cannot open the data folder ${path.resolve(dataDir)}: ${(error as Error).message}`);
      }
    }
    const options = { ...serverOptionsFrom(env), host, port: port ?? DEFAULT_PORT };
    let server: Awaited<ReturnType<typeof startHttpServer>>;
    try {
      server = await startHttpServer(service, {
        ...options,
        ...(flags.has('log-requests') ? { requestLog: (line: string) => console.log(line) } : {}),
      });
    } catch (error) {
      await service.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new CommandFailure(
        code === 'EADDRINUSE'
          ? `Port ${options.port} on ${host} is in use: stop what listens there, or choose another with --port.`
          : (error as Error).message,
      );
    }
    // The full path: a relative one (the default `data`) says nothing of where it is in a log or under a process manager.
    const where = database ? `${describeStore(database)}; models in ${path.resolve(dataDir, 'models')}` : path.resolve(dataDir);
    console.log(`Listening on ${server.url} (data in ${where})`);
    stopOnSignals({ server, service });
  },
};
