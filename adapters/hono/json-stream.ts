import type { Context } from 'hono';

/** Array items serialized between two turns of the event loop. */
const ITEMS_PER_CHUNK = 256;

/**
 * Answers `value` as JSON. A value holding a long list (a conversation of thousands of messages)
 * is streamed: its list items are serialized a chunk at a time as the socket takes them, so other
 * clients are served in between and no single string of the whole answer is built. The text is
 * what `JSON.stringify(value)` gives.
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

/** Whether `value` has, within `depth` levels, an array longer than one chunk. */
function hasLongList(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth < 0) return false;
  if (Array.isArray(value)) return value.length > ITEMS_PER_CHUNK || value.some((item) => hasLongList(item, depth - 1));
  for (const nested of Object.values(value)) if (hasLongList(nested, depth - 1)) return true;
  return false;
}

/** The JSON text of `value` in pieces: a piece per chunk of list items, and per long nested list. */
function* jsonChunks(value: unknown): Generator<string, void, undefined> {
  if (typeof value !== 'object' || value === null || !hasLongList(value, 3)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  const isArray = Array.isArray(value);
  const entries: [string | undefined, unknown][] = isArray ? value.map((item) => [undefined, item]) : Object.entries(value);
  let text = isArray ? '[' : '{';
  let first = true;
  let items = 0;
  for (const [key, nested] of entries) {
    // What JSON.stringify leaves out of an object.
    if (!isArray && (nested === undefined || typeof nested === 'function' || typeof nested === 'symbol')) continue;
    text += `${first ? '' : ','}${key === undefined ? '' : `${JSON.stringify(key)}:`}`;
    first = false;
    if (hasLongList(nested, 2)) {
      yield text;
      text = '';
      yield* jsonChunks(nested);
      continue;
    }
    text += JSON.stringify(nested) ?? 'null';
    if (++items % ITEMS_PER_CHUNK === 0) {
      yield text;
      text = '';
    }
  }
  yield `${text}${isArray ? ']' : '}'}`;
}
