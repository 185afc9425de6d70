/**
 * Every failure the service reports on purpose. Codes are transport-neutral: the HTTP adapter maps
 * each one to a status in a single table, and a new code does not compile until it is mapped there.
 */
export type ErrorCode =
  /** The input does not match its schema; `issues` names the fields at fault. */
  | 'INVALID_INPUT'
  /** A record named by id does not exist. */
  | 'NOT_FOUND'
  /** The write would create a duplicate (a model that already exists). */
  | 'CONFLICT'
  /** The operation is not allowed on this record (deleting a built-in model, say). */
  | 'FORBIDDEN'
  /** The record exists but has nothing the operation can work on (no text to name or summarize). */
  | 'UNPROCESSABLE'
  /**
   * The store cannot do this operation at all: a backup of a PostgreSQL store, which is backed up
   * with the database's own tools (`pg_dump`). The message says what to use instead.
   */
  | 'NOT_SUPPORTED'
  /** The input is larger than the service accepts: a body, a list or a text over its limit. */
  | 'PAYLOAD_TOO_LARGE'
  /** The request lacks the token the service requires (HTTP only). */
  | 'UNAUTHORIZED'
  /** The request body is not JSON (HTTP only). */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /**
   * The disk is full (or over its quota): the write was refused and nothing of it was kept. Reads
   * go on; writes work again once space is freed.
   */
  | 'INSUFFICIENT_STORAGE'
  /**
   * A stored record's bytes are damaged on disk (they fail their checksum, or do not parse): the
   * error names the file, the byte offset and the record. Not the caller's fault, and not a bug
   * of the service: the data must be repaired or restored (see the README on recovery). Lists and
   * searches leave such records out and name them in their `skipped` instead.
   */
  | 'DATA_DAMAGED'
  /**
   * The store was written by a newer release of this service (a PostgreSQL schema migrated past
   * what this release knows): refused when the store opens, and nothing of it is changed. Run the
   * newer release, or restore a copy made before the upgrade.
   */
  | 'STORE_TOO_NEW'
  /**
   * The store's database cannot answer now: unreachable, restarting, a statement past its time
   * bound, or writes that kept meeting each other past their retries. Nothing of the request was
   * kept (a transaction that failed rolled back); the same request may succeed later.
   */
  | 'STORE_UNAVAILABLE'
  /**
   * A change stream's reader fell further behind than its bound (`maxPendingIds` of
   * `service.watch()`): the stream was ended and what waited for it freed. Watch again for a
   * fresh list. Over WebSocket the same is close code 1013.
   */
  | 'TOO_SLOW';

/** One problem with one field of an input. `path` is the field's location, e.g. `["name"]`. */
export interface InputIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Details an error carries besides its message; all optional. */
export interface ServiceErrorDetails {
  /** The kind of record concerned, e.g. `conversation`, `model`. */
  readonly resource?: string;
  /** The id at fault. */
  readonly id?: string;
  /** Field-level problems of an invalid input. */
  readonly issues?: readonly InputIssue[];
  /** For conflicts: the id of the record that already exists. */
  readonly existingId?: string;
  /** For limits: the most the service accepts. */
  readonly limit?: number;
  /** For a search over its work budget: which one (`postings`, `recordChars`; see `SEARCH_BUDGET`). */
  readonly budget?: string;
  /** For damaged data: the file (its name in the store's folder) where the damage is. */
  readonly file?: string;
  /** For damaged data: the byte offset in `file` of the damaged record or line. */
  readonly offset?: number;
  /** For damaged data met by a read of many records: every damaged one among them, when there are more than one. */
  readonly damaged?: readonly DamagedRecord[];
}

/** A record found damaged on disk: which, where, and what is wrong (the message a read of it answers). */
export interface DamagedRecord {
  /** The kind of record, e.g. `message`. */
  readonly resource: string;
  readonly id: string;
  /** The file (its name in the store's folder) and the byte offset where the damage was found. */
  readonly file: string;
  readonly offset: number;
  readonly message: string;
}

const BRAND = Symbol.for('conversation-model-service.error');

/**
 * The one error type the service throws on purpose. Anything else that escapes an operation is a bug.
 * Detect it with {@link isServiceError} rather than `instanceof`, which fails across duplicated bundles.
 */
export class ServiceError extends Error {
  readonly [BRAND] = true;
  override readonly name = 'ServiceError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ServiceErrorDetails = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** A plain JSON form, the body of an error answer. */
  toJSON(): { code: ErrorCode; message: string } & ServiceErrorDetails {
    return { code: this.code, message: this.message, ...this.details };
  }
}

/** True for errors thrown by this service, whichever copy of the package threw them. */
export function isServiceError(value: unknown): value is ServiceError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

export const notFound = (resource: string, id: string): ServiceError =>
  new ServiceError('NOT_FOUND', `No ${resource} has the id "${id}".`, { resource, id });

/** Errno codes that mean the disk cannot take more bytes. */
const NO_SPACE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);

/** True when `error` (or what caused it) says the disk is full or over quota. */
export function isNoSpaceError(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NO_SPACE_CODES.has(code)) return true;
  }
  return false;
}

/** DATA_DAMAGED for `records` (at least one), named after the first. */
export function dataDamaged(records: readonly DamagedRecord[]): ServiceError {
  const [first] = records;
  if (!first) throw new TypeError('dataDamaged needs at least one damaged record.');
  const more = records.length > 1 ? ` (and ${records.length - 1} more damaged ${first.resource}s read with it)` : '';
  return new ServiceError('DATA_DAMAGED', `${first.message}${more}`, {
    resource: first.resource,
    id: first.id,
    file: first.file,
    offset: first.offset,
    ...(records.length > 1 ? { damaged: records } : {}),
  });
}

export const invalidInput = (message: string, issues: readonly InputIssue[] = []): ServiceError =>
  new ServiceError('INVALID_INPUT', message, { issues });
