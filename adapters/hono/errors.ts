import type { IncomingMessage } from 'node:http';
import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type ErrorCode, isServiceError, type ServiceError } from '../../src/index.js';
import { discardUnreadBody } from './body.js';

/** The one table from error codes to HTTP statuses. A new code does not compile until mapped here. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  INSUFFICIENT_STORAGE: 507,
  // The service does not do this with its store (a backup of PostgreSQL): neither the request's
  // fault nor a bug; the message says what to use instead.
  NOT_SUPPORTED: 501,
  // Stored data is damaged: neither the client's fault (4xx) nor a bug of the service (500, which
  // this service keeps for bugs). 503 says the service cannot answer this now, on its side, and
  // that the same request can succeed later (once the data is repaired or restored); the body's
  // code and its `file` and `offset` say what is damaged. No Retry-After: a retry soon fails alike.
  DATA_DAMAGED: 503,
  // Refused when the store opens, so no request meets it; if one did, the service could not
  // answer until it is upgraded: on its side, like damaged data.
  STORE_TOO_NEW: 503,
  // The database is unreachable or over its time bounds: on the service's side, and a retry later
  // may succeed.
  STORE_UNAVAILABLE: 503,
  // Ends a change stream (`service.watch()`; over WebSocket, close code 1013) and is never answered
  // to a request; mapped as a load the service sheds, which a retry later may not meet.
  TOO_SLOW: 503,
};

/** Per-route exceptions to the table, set by a route before it calls the service. */
export type StatusOverrides = Partial<Record<ErrorCode, ContentfulStatusCode>>;
export type RouterEnv = {
  Variables: {
    statusOverrides?: StatusOverrides;
    /** The request body's text, once read (POST only). */
    body?: string;
  };
};

/** `{ "error": { code, message, ... } }` with the status of its code. */
export function errorResponse(c: Context<RouterEnv>, error: ServiceError): Response {
  const status = c.get('statusOverrides')?.[error.code] ?? STATUS_BY_CODE[error.code];
  return c.json({ error: error.toJSON() }, status);
}

/** Where the router reports what went wrong; `console` by default. */
export interface RouterLogger {
  error(message: string, error?: unknown): void;
}

/**
 * The router's one error funnel. Service errors become their status; anything else is a bug: it
 * is logged and answered 500 without internals. A request refused before its body was read has
 * that body discarded first, so the connection can carry the next request. A client that went
 * away is not an error: nobody is left to answer.
 */
export const createOnError =
  (logger: RouterLogger): ErrorHandler<RouterEnv> =>
  async (error, c) => {
    if (clientGone(c)) return new Response(null, { status: 499 });
    await discardUnreadBody(c);
    if (isServiceError(error)) return errorResponse(c, error);
    logger.error(`Unexpected error while answering ${c.req.method} ${c.req.path}`, error);
    return c.json({ error: { code: 'INTERNAL', message: 'The service failed to answer this request.' } }, 500);
  };

/**
 * Whether the client went away. Under @hono/node-server the Node request says so; asking the web
 * Request's signal instead would build that Request (and a stream over the body) just to ask.
 */
function clientGone(c: Context<RouterEnv>): boolean {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return incoming.destroyed && !incoming.complete;
  return c.req.raw.signal?.aborted === true;
}
