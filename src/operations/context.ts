import { z } from 'zod';
import { notFound } from '../errors.js';
import type { ModelRegistry, ReadView, Repository, Summarizer } from '../ports.js';
import type { CollectionName, Collections, Timestamp } from '../records.js';
import type { ConversationJsonCache } from '../render/json-cache.js';
import type { RenderOptions } from '../render/lists.js';
import { idSchema } from '../schemas/common.js';
import { parseInput } from '../validate.js';

/** What every operation works with: the ports, a clock and an id source. */
export interface OperationContext {
  readonly repository: Repository;
  readonly summarizer: Summarizer;
  readonly models: ModelRegistry;
  /** The current time as a wire timestamp. */
  now(): Timestamp;
  /** A new record id (a uuid by default). */
  newId(): string;
  /** Serialized conversations, for transports that answer JSON. */
  readonly conversationJson: ConversationJsonCache;
}

/** Options of the reads that answer conversation data. */
export interface ReadOptions {
  /** Include transferable data (message text, asset content). Default: true. */
  readonly transferables?: boolean;
}

const readOptionsSchema = z.object({ transferables: z.boolean().optional() }).optional();

export function renderOptions(options: ReadOptions | undefined): RenderOptions {
  const parsed = parseInput(readOptionsSchema, options, 'read options');
  return { transferables: parsed?.transferables ?? true };
}

/** Validates an id argument; `what` names it in the error ("conversation id"). */
export const parseId = (id: unknown, what: string): string => parseInput(idSchema, id, what);

/** The record, or NOT_FOUND naming `resource` and the id. */
export function mustGet<C extends CollectionName>(
  view: ReadView,
  collection: C,
  id: string,
  resource: string,
): Collections[C] {
  const record = view.get(collection, id);
  if (!record) throw notFound(resource, id);
  return record;
}
