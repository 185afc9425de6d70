import { STREAMS, type StreamCollection } from '../../src/index.js';

/** A change stream's route: a WebSocket at `path` (see `attachStreams`), described in the OpenAPI document. */
export interface StreamRoute {
  readonly collection: StreamCollection;
  readonly path: string;
  /** The official client's method name. */
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
}

const summary = (what: string) =>
  `A WebSocket (Upgrade: websocket) that sends every ${what} id, then each id created, changed or deleted (\`deleted: true\`), as StreamedIdentifiers frames. See docs/streams.md.`;

/** The four change streams, in the order the document lists them. */
export const STREAM_ROUTES: readonly StreamRoute[] = [
  {
    collection: 'conversations',
    path: STREAMS.conversations.path,
    operationId: 'conversationsStreamIdentifiers',
    tag: 'Conversations',
    summary: summary('conversation'),
  },
  {
    collection: 'messages',
    path: STREAMS.messages.path,
    operationId: 'conversationMessagesStreamIdentifiers',
    tag: 'Conversation messages',
    summary: summary('message'),
  },
  {
    collection: 'annotations',
    path: STREAMS.annotations.path,
    operationId: 'annotationsStreamIdentifiers',
    tag: 'Annotations',
    summary: summary('annotation'),
  },
  { collection: 'models', path: STREAMS.models.path, operationId: 'modelsStreamIdentifiers', tag: 'Models', summary: summary('model') },
];
