import type { Context, MiddlewareHandler } from 'hono';
import { type ListOptions, ServiceError } from '../../src/index.js';
import { nextTurn } from '../../src/slices.js';
import { readBodyText } from './body.js';
import type { RouterEnv } from './errors.js';

/**
 * Reads every POST body (within `maxBytes`) before the route runs, so a body sent to a route
 * that takes none is read and discarded rather than left on the connection, where it would break
 * the next request. A Content-Type, when sent, must be JSON: that refuses what an HTML form can
 * send (form-urlencoded, multipart, text/plain) even before the origin checks.
 */
export const readPostBody =
  (maxBytes: number): MiddlewareHandler<RouterEnv> =>
  async (c, next) => {
    const type = c.req.header('content-type');
    if (type !== undefined && !isJson(type)) {
      throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', `Request bodies must be JSON (Content-Type: application/json), not "${type}".`);
    }
    const body = await readBodyText(c, maxBytes);
    c.set('body', body);
    // Reading a long body ends with joining and decoding it; parsing it is work enough for a turn of its own.
    if (body.length > LONG_BODY_CHARS) await nextTurn();
    await next();
  };

/** Bodies longer than this (a conversation of thousands of messages) are parsed on a later turn of the event loop. */
const LONG_BODY_CHARS = 256 * 1024;

const isJson = (type: string) => /^application\/json\s*(?:;|$)/i.test(type.trim());

/**
 * The JSON body, or undefined when it is empty: the official client sends `Content-Type:
 * application/json` with an empty body when the caller passes no input, which means "no input".
 * Typed as what the called operation takes: this is the HTTP edge, where input is still
 * unchecked, and the operation validates it with the schema its type comes from.
 */
export function readJsonBody<Input = unknown>(c: Context<RouterEnv>): Input {
  return readUncheckedBody(c) as Input;
}

function readUncheckedBody(c: Context<RouterEnv>): unknown {
  const text = c.get('body') ?? '';
  if (text.trim() === '') return undefined;
  if (c.req.header('content-type') === undefined) {
    throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'A request body needs "Content-Type: application/json".');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError('INVALID_INPUT', `The request body is not valid JSON: ${(error as Error).message}`, {
      issues: [{ path: [], message: 'malformed JSON' }],
    });
  }
}

/** The `transferables` query parameter: absent means true; anything but true/false is a 400. */
export function readTransferables(c: Context): { transferables?: boolean } {
  const value = c.req.query('transferables');
  if (value === undefined) return {};
  if (value === 'true') return { transferables: true };
  if (value === 'false') return { transferables: false };
  throw new ServiceError('INVALID_INPUT', `Query parameter "transferables" must be true or false, not "${value}".`, {
    issues: [{ path: ['transferables'], message: 'must be true or false' }],
  });
}

/** `transferables`, `limit` and `offset` of a list route; the service validates the numbers. */
export function readListOptions(c: Context): ListOptions {
  const options: { transferables?: boolean; limit?: number; offset?: number } = readTransferables(c);
  for (const name of ['limit', 'offset'] as const) {
    const value = c.req.query(name);
    if (value === undefined) continue;
    if (!/^\d{1,9}$/.test(value)) {
      throw new ServiceError('INVALID_INPUT', `Query parameter "${name}" must be a whole number, not "${value.slice(0, 40)}".`, {
        issues: [{ path: [name], message: 'must be a whole number' }],
      });
    }
    options[name] = Number(value);
  }
  return options;
}

/** A path parameter, decoded (the client percent-encodes ids). */
export const param = (c: Context, name: string): string => c.req.param(name) ?? '';
