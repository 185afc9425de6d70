import { LIMITS } from '../limits.js';
import type { CollectionName } from '../records.js';
import { recordProblem } from '../stores/record-checks.js';
import { EXPORTED_COLLECTIONS } from './format.js';

/** Nesting a record may have: its own fields and lists, over the free-form JSON fields' own bound. */
const MAX_RECORD_DEPTH = LIMITS.jsonDepth + 8;
/** The longest id a record of a file may have (the API's own bound on ids). */
const MAX_ID_CHARS = 512;

const EXPORTED: ReadonlySet<string> = new Set(EXPORTED_COLLECTIONS);

/**
 * What is wrong with one line of this service's export, `{ collection, record }`, or undefined:
 * a collection this release exports, a record with every field the stores require (the checks a
 * store makes when it opens, src/stores/record-checks.ts), an id of at most 512 characters, no
 * text over `LIMITS.textChars`, no conversation over `LIMITS.messagesPerConversation` messages,
 * and no nesting deeper than the free-form fields may have.
 */
export function lineProblem(line: unknown): { problem: string; collection?: CollectionName; id?: string } | undefined {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) return { problem: 'it is not an object { collection, record }' };
  const { collection, record } = line as { collection?: unknown; record?: unknown };
  if (typeof collection !== 'string' || !EXPORTED.has(collection)) {
    return { problem: `its collection ${JSON.stringify(collection)?.slice(0, 60)} is not one this release imports` };
  }
  const name = collection as CollectionName;
  const problem = recordProblem(name, record);
  const rawId = (record as { id?: unknown } | undefined)?.id;
  const id = typeof rawId === 'string' ? rawId.slice(0, MAX_ID_CHARS) : undefined;
  const at = { collection: name, ...(id !== undefined ? { id } : {}) };
  if (problem) return { problem, ...at };
  if ((rawId as string).length === 0 || (rawId as string).length > MAX_ID_CHARS) {
    return { problem: `its id must be 1 to ${MAX_ID_CHARS} characters`, ...at };
  }
  if (name === 'conversations') {
    const messages = (record as { messages: unknown[] }).messages.length;
    if (messages > LIMITS.messagesPerConversation) {
      return { problem: `it holds ${messages} messages, more than a conversation may (${LIMITS.messagesPerConversation})`, ...at };
    }
  }
  const size = sizeProblem(record, 0);
  return size ? { problem: size, ...at } : undefined;
}

/** A text too long or a nesting too deep in `value`, walked no deeper than the bound. */
function sizeProblem(value: unknown, depth: number): string | undefined {
  if (typeof value === 'string') {
    return value.length > LIMITS.textChars ? `it holds a text of ${value.length} characters, more than ${LIMITS.textChars}` : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_RECORD_DEPTH) return `it nests deeper than ${MAX_RECORD_DEPTH} levels`;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const problem = sizeProblem(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
