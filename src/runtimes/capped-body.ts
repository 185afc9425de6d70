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
