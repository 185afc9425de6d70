import { onTestFinished } from 'vitest';
import WebSocket, { type ClientOptions } from 'ws';
import type { StreamedIdentifiers } from '../../src/index.js';

/** A subscriber to one change stream: the frames it has read, and how it ended. */
export interface StreamClient {
  readonly socket: WebSocket;
  readonly frames: StreamedIdentifiers[];
  /** The next frame not yet taken by `next()`; rejects after `ms` without one. */
  next(ms?: number): Promise<StreamedIdentifiers>;
  /** Resolves with the close code and reason once the socket is closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/**
 * Opens a WebSocket to `url` and resolves once it is open (rejecting with the HTTP status of a
 * refused upgrade as `status`). Closed after the test.
 */
export async function openStream(url: string, protocols?: string | string[], options: ClientOptions = {}): Promise<StreamClient> {
  const socket = new WebSocket(url, protocols, options);
  onTestFinished(() => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  });
  const frames: StreamedIdentifiers[] = [];
  let taken = 0;
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as StreamedIdentifiers);
    wake?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      wake?.();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => {
      reject(Object.assign(new Error(`Upgrade refused: ${response.statusCode}`), { status: response.statusCode }));
      response.resume();
      socket.terminate();
    });
    socket.once('error', reject);
  });
  return {
    socket,
    frames,
    closed,
    async next(ms = 1_000) {
      const deadline = Date.now() + ms;
      while (taken >= frames.length) {
        const left = deadline - Date.now();
        if (left <= 0 || socket.readyState === WebSocket.CLOSED) throw new Error(`No frame within ${ms} ms (${frames.length} read).`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, left);
        });
        wake = undefined;
      }
      return frames[taken++]!;
    },
  };
}

/** The ids of a frame, with `-` before a deleted one. */
export const idsOf = (frame: StreamedIdentifiers): string[] =>
  frame.iterable.map((item) => {
    const id = (item.conversation ?? item.conversationMessage ?? item.annotation ?? item.model)?.id ?? '?';
    return item.deleted ? `-${id}` : id;
  });
