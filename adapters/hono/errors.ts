import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isServiceError, ServiceError, type ErrorCode } from '../../src/index.js';

/** The one table from error codes to HTTP statuses. A new code does not compile until mapped here. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  INVALID_INPUT: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
};

/** Per-route exceptions to the table, set by a route before it calls the service. */
export type StatusOverrides = Partial<Record<ErrorCode, ContentfulStatusCode>>;
export type RouterEnv = { Variables: { statusOverrides?: StatusOverrides } };

/** `{ "error": { code, message, ... } }` with the status of its code. */
export function errorResponse(c: Context<RouterEnv>, error: ServiceError): Response {
  const status = c.get('statusOverrides')?.[error.code] ?? STATUS_BY_CODE[error.code];
  return c.json({ error: error.toJSON() }, status);
}

/**
 * The router's one error funnel. Service errors become their status; anything else is a bug: it
 * is logged and answered 500 without internals.
 */
export const onError: ErrorHandler<RouterEnv> = (error, c) => {
  if (isServiceError(error)) return errorResponse(c, error);
  console.error('Unexpected error while answering', c.req.method, c.req.path, error);
  return c.json({ error: { code: 'INTERNAL', message: 'The service failed to answer this request.' } }, 500);
};
