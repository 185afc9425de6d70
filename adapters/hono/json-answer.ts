import type { Context } from 'hono';
import { hasLongList, jsonChunks } from '../../src/render/json-chunks.js';

/**
 * Answers `value` as JSON. A value holding a long list (a conversation of thousands of messages)
 * is streamed: its items are serialized a few hundred at a time as the socket takes them, so other
 * clients are served in between and no string of the whole answer is built.
 */
export function jsonAnswer(c: Context, value: unknown, status: 200 = 200): Response {
  if (!hasLongList(value, 3)) return c.json(value as object, status);
  const chunks = jsonChunks(value);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      void chunks.return(undefined);
    },
  });
  return c.body(body, status, { 'Content-Type': 'application/json' });
}
