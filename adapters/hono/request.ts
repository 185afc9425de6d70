import type { Context } from 'hono';
import { ServiceError } from '../../src/index.js';

/**
 * The JSON body, or undefined when it is empty: the official client sends `Content-Type:
 * application/json` with an empty body when the caller passes no input, which means "no input".
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
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

/** A path parameter, decoded (the client percent-encodes ids). */
export const param = (c: Context, name: string): string => c.req.param(name) ?? '';
