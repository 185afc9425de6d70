/**
 * Where a command's records live: a data folder (the JSON-file store) or a PostgreSQL database
 * (a `postgres://` or `postgresql://` URL, and a schema in it). `serve`, the example server and
 * `store copy` name and open stores through here, so they say them alike and never print a password.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Repository } from '../../src/ports.js';
import type { FolderInUseError } from '../../src/stores/json-file/folder-lock.js';
import { CommandFailure, UsageError } from './failures.js';

/** The schema a PostgreSQL store uses when none is named (the library's own default). */
export const DEFAULT_DATABASE_SCHEMA = 'conversation_model_service';

/** A store by where it is. */
export type StoreLocation =
  | { readonly kind: 'folder'; readonly folder: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

/** Whether `text` is a PostgreSQL connection URL rather than a folder. */
export const isDatabaseUrl = (text: string): boolean => /^postgres(ql)?:\/\//i.test(text);

/** A database location; `source` names where the URL came from (`--database-url`, `DATABASE_URL`) for a bad one. */
export function databaseLocation(url: string, schema: string | undefined, source: string): StoreLocation {
  if (!isDatabaseUrl(url)) throw new UsageError(`${source} must be a postgres:// or postgresql:// URL`);
  try {
    new URL(url);
  } catch {
    throw new UsageError(`${source} is not a valid URL`);
  }
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
    throw new UsageError(`the schema "${schema}" must be letters, digits and underscores`);
  }
  return { kind: 'postgres', url, schema: schema ?? DEFAULT_DATABASE_SCHEMA };
}

/** `text` as `store copy` takes it: a PostgreSQL URL, else a folder. */
export function storeLocation(text: string, schema: string | undefined, source: string): StoreLocation {
  if (isDatabaseUrl(text)) return databaseLocation(text, schema, source);
  if (schema !== undefined) throw new UsageError(`${source} is a folder: a schema is only for a postgres:// URL`);
  return { kind: 'folder', folder: path.resolve(text) };
}

/**
 * A connection URL without what must not reach a log: its password, and its query (which may carry
 * one, or an SSL key's path). `postgres://me:secret@db:5432/app?sslmode=require` is `postgres://me@db:5432/app`.
 */
export function redactDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  const user = parsed.username ? `${parsed.username}@` : '';
  return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/** A store as a start line or a report says it: the folder's full path, or `PostgreSQL <url>, schema <s>`. */
export function describeStore(location: StoreLocation): string {
  return location.kind === 'folder' ? location.folder : `PostgreSQL ${redactDatabaseUrl(location.url)}, schema ${location.schema}`;
}

/** Whether two locations are one store: the same folder (links resolved), or the same database and schema. */
export function sameStore(a: StoreLocation, b: StoreLocation): boolean {
  if (a.kind === 'folder' && b.kind === 'folder') return realFolder(a.folder) === realFolder(b.folder);
  if (a.kind === 'postgres' && b.kind === 'postgres') {
    const [x, y] = [new URL(a.url), new URL(b.url)];
    const where = (u: URL) => `${u.hostname.toLowerCase()}:${u.port || '5432'}${decodeURIComponent(u.pathname)}`;
    return where(x) === where(y) && a.schema === b.schema;
  }
  return false;
}

const realFolder = (folder: string) => (existsSync(folder) ? realpathSync(folder) : path.resolve(folder));

/** Whether `error` says another process holds the data folder's lock. */
export const isFolderInUse = (error: unknown): error is FolderInUseError =>
  error instanceof Error && (error as Partial<FolderInUseError>).code === 'DATA_FOLDER_IN_USE';

/** Options for {@link openStore}. */
export interface OpenStoreOptions {
  /** Take a folder's lock from a holder that seems to run (`--take-over-lock`). */
  readonly takeOverLock?: boolean;
  /** What the folder-in-use message advises after "Stop that process" (the command's own flags). */
  readonly folderInUseAdvice?: string;
  readonly logger?: { warn(message: string): void };
  /** A database schema that holds no store is refused rather than created (a copy's source). */
  readonly mustExist?: boolean;
}

/**
 * Opens the store at `location`: a folder through its lock (a folder a running server holds is
 * refused, naming the holder), a database through the library's migrations. Every failure is one
 * CommandFailure line naming the store, never the password: an unreachable database is an error,
 * never a reason to fall back to a folder.
 */
export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<Repository> {
  if (location.kind === 'folder') {
    const { createJsonFileRepository } = await import('../../src/stores/json-file/index.js');
    try {
      return await createJsonFileRepository({
        file: path.join(location.folder, 'db.json'),
        ...(options.takeOverLock ? { takeOverLock: true } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
      });
    } catch (error) {
      if (isFolderInUse(error)) {
        throw new CommandFailure(
          `The data folder ${error.folder} is in use by ${error.holder}. Stop that process${options.folderInUseAdvice ?? '.'}`,
        );
      }
      throw new CommandFailure(`Cannot open the data folder ${location.folder}: ${messageOf(error)}`);
    }
  }
  const { createPostgresRepository } = await import('../../src/stores/postgres/index.js');
  try {
    return await createPostgresRepository(
      { connectionString: location.url },
      {
        schema: location.schema,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.mustExist ? { mustExist: true } : {}),
      },
    );
  } catch (error) {
    throw new CommandFailure(`Cannot open ${describeStore(location)}: ${withoutPassword(messageOf(error), location.url)}`);
  }
}

/**
 * An error's message on one line. Node's connect errors to a name with several addresses are an
 * AggregateError whose own message is empty: its parts say what failed.
 */
function messageOf(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(messageOf).join('; ');
  const message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
  return message.replace(/\s*\n\s*/g, ' ');
}

/** `message` with the URL's password taken out, should a driver ever quote it. */
function withoutPassword(message: string, url: string): string {
  const password = new URL(url).password;
  return password ? message.split(password).join('***').split(decodeURIComponent(password)).join('***') : message;
}
