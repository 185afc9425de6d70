/** A response body read up to a cap. */
export interface CappedBody {
  /** The body's text, or the text of its first `maxBytes` bytes when it went on past them. */
  readonly text: string;
  /** Whether the body went on past `maxBytes`; then the rest was never read. */
  readonly cut: boolean;
}

/**
 * Reads `response`'s body as UTF-8 text, a chunk at a time, keeping at most `maxBytes` of it. The
 * moment the body passes the cap, its reader is cancelled and `request` (the controller of the
 * fetch's signal) is aborted, so that the connection closes: the server stops sending, and a
 * body of any size costs at most `maxBytes` of memory (`response.text()` would hold all of it).
 * Rejects as the body's stream does: an aborted signal, a connection cut.
 */
export async function readCappedBody(response: Response, maxBytes: number, request: AbortController): Promise<CappedBody> {
  if (!response.body) return { text: '', cut: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  // Ends with the body, at the cap, or when the fetch's signal aborts the read.
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), cut: false };
    if (bytes + value.byteLength > maxBytes) {
      text += decoder.decode(value.subarray(0, maxBytes - bytes));
      await reader.cancel().catch(() => undefined);
      request.abort(new Error(`The answer went past ${maxBytes} bytes.`));
      return { text, cut: true };
    }
    bytes += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}

/** `1 MiB`, `64 KiB`, `1000 bytes`: a cap as the messages say it. */
export function byteSize(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`;
  if (bytes >= 2 ** 10 && bytes % 2 ** 10 === 0) return `${bytes / 2 ** 10} KiB`;
  return `${bytes} bytes`;
}

/** What {@link postJson} sends, and how it reads the answer. */
export interface PostJson {
  readonly fetch: typeof fetch;
  readonly url: string;
  readonly payload: unknown;
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal;
  /** Aborted (closing the connection) when the answer passes its cap. */
  readonly request: AbortController;
  /** The most bytes read of a successful answer. */
  readonly maxBytes: number;
  /** The most bytes read of an error answer, which is only quoted. */
  readonly quotedBytes: number;
  /** The error to reject with when the server cannot be reached or breaks off its answer. */
  readonly failed: (error: unknown, what: string) => Error;
}

/** POSTs `payload` as JSON and reads the answer's text, capped (see {@link readCappedBody}). */
export async function postJson(post: PostJson): Promise<CappedBody & { readonly response: Response }> {
  let response: Response;
  try {
    response = await post.fetch(post.url, {
      method: 'POST',
      headers: post.headers,
      body: JSON.stringify(post.payload),
      signal: AbortSignal.any([post.signal, post.request.signal]),
    });
  } catch (error) {
    throw post.failed(error, 'cannot be reached');
  }
  try {
    // An error answer is only quoted: its first characters are all that is read of it.
    const body = await readCappedBody(response, response.ok ? post.maxBytes : Math.min(post.maxBytes, post.quotedBytes), post.request);
    return { ...body, response };
  } catch (error) {
    throw post.failed(error, 'broke off its answer');
  }
}
