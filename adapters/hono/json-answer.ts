import type { Context } from 'hono';
import { hasLongList, jsonChunks } from '../../src/render/json-chunks.js';
import { Slices } from '../../src/slices.js';

/**
 * Answers `value` as JSON. A value holding a long list (a conversation of thousands of messages)
 * is streamed: its items are serialized a few hundred at a time as the socket takes them (see
 * {@link jsonTextAnswer}), and no string of the whole answer is built.
 */
export function jsonAnswer(c: Context, value: unknown, status: 200 = 200): Response {
  if (!hasLongList(value, 3)) return c.json(value as object, status);
  return jsonTextAnswer(c, jsonChunks(value), status);
}

/**
 * Answers JSON text: a string or its UTF-8 bytes (a cached answer) as they are, or pieces that joined are the text, streamed as the socket
 * takes them, a slice at a time, so that other clients are served in between. The socket takes
 * a loopback client's megabytes as fast as they come, so without slices the whole answer would
 * be serialized and written in one go.
 */
export function jsonTextAnswer(c: Context, text: string | Uint8Array | Iterable<string>, status: 200 = 200): Response {
  const headers = { 'Content-Type': 'application/json' };
  if (typeof text === 'string' || text instanceof Uint8Array) return c.body(text as Uint8Array<ArrayBuffer>, status, headers);
  const pieces = text[Symbol.iterator]();
  const encoder = new TextEncoder();
  const slices = new Slices();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (slices.due) await slices.next();
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      void pieces.return?.(undefined);
    },
  });
  return c.body(body, status, headers);
}
