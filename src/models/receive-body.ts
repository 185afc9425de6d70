import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { bytesText, DownloadFailure, secondsText } from './download-failure.js';
import { writeAll } from './partial-file.js';

/** How often, in bytes written, the free space is measured again: `statfs` is cheap, not free. */
const SPACE_CHECK_BYTES = 4 * 1024 * 1024;

/** The rules a body is received under. */
export interface BodyRules {
  /** The size the file must have (`bytes.value`): the first byte past it fails the download. */
  readonly declared: number | undefined;
  /** The least to receive in each `stallTimeoutMs`, or the download is `stalled`. */
  readonly stallBytes: number;
  readonly stallTimeoutMs: number;
  /** Aborts the download (a cancel, the service closing). */
  readonly signal: AbortSignal;
  /** Throws a `disk full` failure when the disk is below its reserve; called every few MiB. */
  checkRoom(): Promise<void>;
  /** Called with the file's size after each chunk written. */
  onProgress(received: number): void;
}

/**
 * Appends an answer's body to the partial file, from byte `received` of the file, and answers the
 * file's size once the body ends. Enforces the rules as the bytes arrive, never after: a chunk
 * that would pass the declared size is not written. (Node's parser itself never delivers more
 * than the answer's `Content-Length`.) A connection cut midway is `connection lost`.
 */
export async function receiveBody(response: IncomingMessage, handle: FileHandle, received: number, rules: BodyRules): Promise<number> {
  // Fewer than stallBytes in a window: a drip as much as silence (curl's --speed-limit/--speed-time).
  let inWindow = 0;
  const watchdog = setInterval(() => {
    if (inWindow < rules.stallBytes) {
      const why = `stalled: ${bytesText(inWindow)} in the last ${secondsText(rules.stallTimeoutMs)} (fewer than ${bytesText(rules.stallBytes)})`;
      response.destroy(new DownloadFailure(why, true));
    }
    inWindow = 0;
  }, rules.stallTimeoutMs);
  const onAbort = () => response.destroy(rules.signal.reason);
  rules.signal.addEventListener('abort', onAbort, { once: true });
  let sinceSpaceCheck = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      inWindow += chunk.byteLength;
      if (rules.declared !== undefined && received + chunk.byteLength > rules.declared) {
        throw new DownloadFailure(`size over the declared ${bytesText(rules.declared)}: the server sent more`, false);
      }
      await writeAll(handle, chunk);
      received += chunk.byteLength;
      sinceSpaceCheck += chunk.byteLength;
      if (sinceSpaceCheck >= SPACE_CHECK_BYTES) {
        sinceSpaceCheck = 0;
        await rules.checkRoom();
      }
      rules.onProgress(received);
    }
  } catch (error) {
    if (error instanceof DownloadFailure || rules.signal.aborted) throw error;
    throw new DownloadFailure(`connection lost at ${bytesText(received)}: ${(error as Error).message}; asking again resumes`, true, {
      cause: error,
    });
  } finally {
    clearInterval(watchdog);
    rules.signal.removeEventListener('abort', onAbort);
  }
  return received;
}
