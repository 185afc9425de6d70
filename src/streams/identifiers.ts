import type { CollectionName } from '../records.js';

/** The collections whose ids stream: one WebSocket route and one `service.watch()` each. */
export type StreamCollection = 'conversations' | 'messages' | 'annotations' | 'models';

/**
 * Each streamed collection, the path of its WebSocket route (the official client's
 * `…StreamIdentifiers` methods) and the field of the API's `StreamedIdentifier` its ids go in.
 */
export const STREAMS: Readonly<Record<StreamCollection, { readonly path: string; readonly field: StreamedIdentifierField }>> = {
  conversations: { path: '/conversations/stream/identifiers', field: 'conversation' },
  messages: { path: '/messages/stream/identifiers', field: 'conversationMessage' },
  annotations: { path: '/annotations/stream/identifiers', field: 'annotation' },
  models: { path: '/models/stream/identifiers', field: 'model' },
};

/** The streamed collections, in the order of {@link STREAMS}. */
export const STREAM_COLLECTIONS = Object.keys(STREAMS) as readonly StreamCollection[];

type StreamedIdentifierField = 'conversation' | 'conversationMessage' | 'annotation' | 'model';

/**
 * One id of a frame, as the API's `StreamedIdentifier`: the record under its kind's field
 * (`conversation`, `conversationMessage`, `annotation` or `model`), and `deleted: true` when it was
 * deleted. Read the record itself (`GET /conversation/{id}`, …) to see what it holds now.
 */
export interface StreamedIdentifier {
  readonly conversation?: { readonly id: string };
  readonly conversationMessage?: { readonly id: string };
  readonly annotation?: { readonly id: string };
  readonly model?: { readonly id: string };
  readonly deleted?: true;
}

/**
 * One frame of a stream, as the API's `StreamedIdentifiers`. The first holds every id of the
 * collection; each later one the ids created, changed or deleted since the frame before, each once
 * (as it is now: several changes of one id while a frame waited are one entry).
 */
export interface StreamedIdentifiers {
  readonly iterable: readonly StreamedIdentifier[];
}

/** A change of one id: what a stream's frames are made of. */
export interface IdChange {
  readonly id: string;
  readonly deleted: boolean;
}

/** Whether `collection` is one that streams. */
export function isStreamCollection(collection: CollectionName | string): collection is StreamCollection {
  return Object.hasOwn(STREAMS, collection);
}

/** The frame of these changes of `collection`'s records, in their order. */
export function frameOf(collection: StreamCollection, changes: Iterable<IdChange>): StreamedIdentifiers {
  const field = STREAMS[collection].field;
  const iterable: StreamedIdentifier[] = [];
  for (const { id, deleted } of changes) iterable.push(deleted ? { [field]: { id }, deleted: true } : { [field]: { id } });
  return { iterable };
}
