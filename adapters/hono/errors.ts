import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isServiceError, ServiceError, type ErrorCode } from '../../src/index.js';

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

/**
 * `{ "error": { code, message, ... } }` with the status of its code. When the request came with
 * a body that was never read (refused before reading, or too large to read), the answer closes
 * the connection: the unread bytes would otherwise be taken for the next request.
 */
export function errorResponse(c: Context<RouterEnv>, error: ServiceError): Response {
  const status = c.get('statusOverrides')?.[error.code] ?? STATUS_BY_CODE[error.code];
  if (c.get('body') === undefined && hasBody(c)) c.header('Connection', 'close');
  return c.json({ error: error.toJSON() }, status);
}

const hasBody = (c: Context) => {
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
};

/**
 * The router's one error funnel. Service errors become their status; anything else is a bug: it
 * is logged and answered 500 without internals.
 */
export const onError: ErrorHandler<RouterEnv> = (error, c) => {
  if (isServiceError(error)) return errorResponse(c, error);
  console.error('Unexpected error while answering', c.req.method, c.req.path, error);
  return c.json({ error: { code: 'INTERNAL', message: 'The service failed to answer this request.' } }, 500);
};
