import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { ServiceError } from '../../src/index.js';
import type { RouterEnv } from './errors.js';

/**
 * Bytes of an unwanted body (too large, or sent with a refused request) read and thrown away so
 * the connection stays usable. Closing instead, while the client is still sending, makes it see a
 * broken pipe rather than the answer. Past this the connection is closed after the answer.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads the request body as text, up to `maxBytes`. A larger body is read to its end and thrown
 * away (up to {@link DISCARD_LIMIT_BYTES}), then refused with PAYLOAD_TOO_LARGE.
 */
export async function readBodyText(c: Context<RouterEnv>, maxBytes: number): Promise<string> {
  if (Number(c.req.header('content-length')) > Math.max(maxBytes, DISCARD_LIMIT_BYTES)) {
    // Too much to read and throw away: refuse at once, and close.
    c.set('body', '');
    c.header('Connection', 'close');
    throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than this service accepts (${maxBytes} bytes).`, {
      limit: maxBytes,
    });
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const complete = await consume(c, (chunk) => {
    size += chunk.byteLength;
    if (size <= maxBytes) chunks.push(chunk);
    else chunks.length = 0;
    return size <= Math.max(maxBytes, DISCARD_LIMIT_BYTES);
  });
  if (size > maxBytes) {
    if (!complete) c.header('Connection', 'close');
    throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than this service accepts (${maxBytes} bytes).`, {
      limit: maxBytes,
    });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Before answering a request refused with its body unread: reads the body to its end and throws
 * it away, within {@link DISCARD_LIMIT_BYTES}; past that, or if the body cannot be read, the
 * answer closes the connection.
 */
export async function discardUnreadBody(c: Context<RouterEnv>): Promise<void> {
  if (c.get('body') !== undefined || !declaresBody(c)) return;
  let size = 0;
  const complete = await consume(c, (chunk) => (size += chunk.byteLength) <= DISCARD_LIMIT_BYTES).catch(() => false);
  // A body too large, or unreadable, stays on the connection: it must not carry another request.
  if (!complete) c.header('Connection', 'close');
}

const declaresBody = (c: Context) => {
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
};

/** Feeds the body's chunks to `take` until it ends (true) or `take` answers false (false). */
async function consume(c: Context<RouterEnv>, take: (chunk: Uint8Array) => boolean): Promise<boolean> {
  // Under @hono/node-server the Node request is at hand: read from it directly, rather than have
  // a web Request and its stream built around it only to be read (a sixth of a write's CPU).
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming instanceof Readable && !incoming.readableDidRead) {
    c.set('body', '');
    return consumeNodeStream(incoming, take);
  }
  const body = c.req.raw.body;
  c.set('body', '');
  if (!body) return true;
  // Read already by someone else: nothing can be known of it, so nothing is taken as given.
  if (body.locked) throw new Error('The request body was already being read.');
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      if (!take(value)) {
        await reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * {@link consume} for a Node request: its chunks until it ends (true), `take` refuses one, or
 * the client goes away (false). Stopping early pauses the request (destroying it would close the
 * socket before the answer is sent); the answer then closes the connection.
 */
function consumeNodeStream(incoming: IncomingMessage, take: (chunk: Uint8Array) => boolean): Promise<boolean> {
  if (incoming.readableEnded) return Promise.resolve(true);
  return new Promise((resolve, reject) => {
    const stop = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      if (take(chunk)) return;
      stop();
      incoming.pause();
      resolve(false);
    };
    const onEnd = () => {
      stop();
      resolve(true);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      resolve(incoming.complete);
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    // It may have been paused (a listener alone does not restart a paused stream).
    incoming.resume();
  });
}
