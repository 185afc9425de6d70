import { z } from 'zod';
import { notFound, ServiceError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { Downloads } from '../models/downloads.js';
import type { ModelRegistry, ModelRuntime, ReadView, Repository, Summarizer } from '../ports.js';
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
  /** Runtimes whose models can write titles and summaries (none: the embedded summarizer writes them). */
  readonly runtimes: readonly ModelRuntime[];
  /** The id or `unique` name of the model that writes when a conversation names none. */
  readonly defaultModel: string | undefined;
  /** How long a model may take to write a title or a summary before the embedded summarizer does. */
  readonly generationTimeoutMs: number;
  /** Where the service reports what it worked around (a model that failed, say). */
  readonly logger: { warn(message: string): void };
  /** Downloads of model files into their cache folders; none without a data folder. */
  readonly downloads: Downloads | undefined;
  /** The folder of the models' cache folders (`DATA_DIR/models`); none without a data folder. */
  readonly cacheRoot: string | undefined;
  /** How long the trash keeps a deleted conversation, in milliseconds; 0 keeps none (a delete is final). */
  readonly trashKeepMs: number;
}

/** Options of the reads that answer conversation data. */
export interface ReadOptions {
  /** Include transferable data (message text, asset content). Default: true. */
  readonly transferables?: boolean;
}

/** Options of the reads that answer a list: which page, and whether with transferable data. */
export interface ListOptions extends ReadOptions {
  /** Items in the page: 1 to {@link LIMITS.pageSize} (the default). */
  readonly limit?: number;
  /** How many items to skip. Default 0. A page that ends before the list answers `next`. */
  readonly offset?: number;
}

const readOptionsSchema = z.object({ transferables: z.boolean().optional() }).optional();
const listOptionsSchema = z
  .object({
    transferables: z.boolean().optional(),
    limit: z.number().int().min(1).optional(),
    offset: z.number().int().min(0).optional(),
  })
  .optional();

export function renderOptions(options: ReadOptions | undefined): RenderOptions {
  // What transports pass on every read, answered without the schema (a cached read is a few
  // microseconds; the schema's parse was a tenth of them); anything else is checked by it.
  if (options === undefined) return DEFAULT_RENDER;
  if (isPlainObject(options) && (options.transferables === undefined || typeof options.transferables === 'boolean')) {
    return options.transferables === false ? WITHOUT_TRANSFERABLES : DEFAULT_RENDER;
  }
  const parsed = parseInput(readOptionsSchema, options, 'read options');
  return { transferables: parsed?.transferables ?? true };
}

/** A validated page request; `maxLimit` is the largest page (and the default). */
export function pageOptions(
  options: ListOptions | undefined,
  maxLimit: number = LIMITS.pageSize,
): RenderOptions & { limit: number; offset: number } {
  const parsed = isPlainPage(options) ? options : parseInput(listOptionsSchema, options, 'list options');
  const limit = parsed?.limit ?? maxLimit;
  if (limit > maxLimit) {
    throw new ServiceError('PAYLOAD_TOO_LARGE', `A page holds at most ${maxLimit} items, not ${limit}.`, {
      issues: [{ path: ['limit'], message: `must be at most ${maxLimit}` }],
      limit: maxLimit,
    });
  }
  return { transferables: parsed?.transferables ?? true, limit, offset: parsed?.offset ?? 0 };
}

/**
 * The page of `collection` that `page` asks for, rendered, with `next` (the offset of the next
 * page) when the list goes on.
 */
export async function pageOf<C extends CollectionName, R>(
  view: ReadView,
  collection: C,
  page: { limit: number; offset: number },
  render: (item: Collections[C]) => R,
): Promise<{ iterable: R[]; next?: number }> {
  const { records, next } = await view.list(collection, { offset: page.offset, limit: page.limit });
  const iterable = records.map(render);
  return next === undefined ? { iterable } : { iterable, next: page.offset + iterable.length };
}

/** Validates an id argument; `what` names it in the error ("conversation id"). */
export const parseId = (id: unknown, what: string): string =>
  // The schema's own rules, checked without it for an id that keeps them (every id but a bad one).
  typeof id === 'string' && id.length > 0 && id.length <= 512 && !CONTROL_CHARACTER.test(id) ? id : parseInput(idSchema, id, what);

/** What {@link idSchema} refuses in an id. */
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

const DEFAULT_RENDER: RenderOptions = Object.freeze({ transferables: true });
const WITHOUT_TRANSFERABLES: RenderOptions = Object.freeze({ transferables: false });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Whether `options` keeps {@link listOptionsSchema}'s rules (checked without it: a list route passes them on every read). */
function isPlainPage(options: unknown): options is ListOptions | undefined {
  if (options === undefined) return true;
  if (!isPlainObject(options)) return false;
  const { transferables, limit, offset } = options;
  return (
    (transferables === undefined || typeof transferables === 'boolean') &&
    (limit === undefined || (Number.isSafeInteger(limit) && (limit as number) >= 1)) &&
    (offset === undefined || (Number.isSafeInteger(offset) && (offset as number) >= 0))
  );
}

/** The record, or NOT_FOUND naming `resource` and the id. */
export async function mustGet<C extends CollectionName>(
  view: ReadView,
  collection: C,
  id: string,
  resource: string,
): Promise<Collections[C]> {
  const record = await view.get(collection, id);
  if (!record) throw notFound(resource, id);
  return record;
}
