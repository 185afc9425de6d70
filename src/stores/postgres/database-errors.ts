import { isServiceError, ServiceError } from '../../errors.js';

/**
 * SQLSTATE classes after which the database, not the request, is at fault: the connection
 * (08), resources such as memory or connections (53), an operator or a timeout cancelling the
 * statement (57: `statement_timeout` is 57014, a server shutting down 57P01), the server's own
 * I/O (58), and transactions given up after their retries (40).
 */
const UNAVAILABLE_CLASSES: ReadonlySet<string> = new Set(['08', '40', '53', '57', '58']);
/** Single SQLSTATEs of the same kind: a lock not available, a transaction idle past its bound. */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set(['55P03', '25P03']);
/** The server's disk is full: what the JSON-file store answers for its own disk. */
const DISK_FULL = '53100';
/** Node's own errors for a server that cannot be reached. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's errors without a code for a connection lost, or never made, in time. */
const NETWORK_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|no answer within \d)/;

/**
 * `error` as the service reports it: a database that cannot answer now (unreachable, restarting,
 * a statement over its time bound, a deadlock that outlasted its retries) is STORE_UNAVAILABLE
 * (503 over HTTP: on the service's side, and the same request may succeed later), a full disk on
 * the database's side is INSUFFICIENT_STORAGE; anything else is returned as it is (an error of
 * the service's own, or a bug, such as SQL the server refuses as malformed).
 */
export function asStoreError(error: unknown, schema: string): unknown {
  if (isServiceError(error) || typeof error !== 'object' || error === null) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const said = typeof message === 'string' ? message : String(error);
  if (code === DISK_FULL) {
    return new ServiceError(
      'INSUFFICIENT_STORAGE',
      `The PostgreSQL server's disk is full: ${said}`,
      { resource: 'store' },
      { cause: error },
    );
  }
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const unavailable = sqlState
    ? UNAVAILABLE_CLASSES.has(sqlState.slice(0, 2)) || UNAVAILABLE_CODES.has(sqlState)
    : (typeof code === 'string' && NETWORK_CODES.has(code)) || NETWORK_MESSAGES.test(said);
  if (!unavailable) return error;
  return new ServiceError(
    'STORE_UNAVAILABLE',
    `The PostgreSQL store (schema "${schema}") cannot answer now: ${said}`,
    { resource: 'store' },
    { cause: error },
  );
}

/** `work`, with a database's failure reported as {@link asStoreError} says. */
export async function reportedAsStore<T>(schema: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asStoreError(error, schema);
  }
}
