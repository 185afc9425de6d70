import { Configuration, ConversationApi, ConversationsApi } from '@pieces.app/pieces-os-client';
import { expect, onTestFinished } from 'vitest';
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

/**
 * Through the official client on `basePath`: creates a conversation, renames it and deletes it,
 * expecting `stream` to bring each as its own frame, in order, within a second of the write's
 * request (the bound for a live list). Answers the conversation's id.
 */
export async function expectCreateUpdateDelete(basePath: string, stream: StreamClient): Promise<string> {
  const configuration = new Configuration({ basePath });
  const conversations = new ConversationsApi(configuration);
  const conversation = new ConversationApi(configuration);
  let started = performance.now();
  const created = await conversations.conversationsCreateSpecificConversation({ seededConversation: { type: 'COPILOT' } });
  expect(idsOf(await stream.next())).toEqual([created.id]);
  expect(performance.now() - started).toBeLessThan(1_000);

  started = performance.now();
  const current = await conversation.conversationGetSpecificConversation({ conversation: created.id, transferables: false });
  await conversation.conversationUpdate({ transferables: false, conversation: { ...current, name: 'Renamed' } });
  expect(idsOf(await stream.next())).toEqual([created.id]);
  expect(performance.now() - started).toBeLessThan(1_000);

  started = performance.now();
  await conversations.conversationsDeleteSpecificConversation({ conversation: created.id });
  expect(idsOf(await stream.next())).toEqual([`-${created.id}`]);
  expect(performance.now() - started).toBeLessThan(1_000);
  return created.id;
}
