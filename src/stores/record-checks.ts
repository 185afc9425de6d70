import type { CollectionName } from '../records.js';

type Check = (value: unknown) => boolean;
const text: Check = (value) => typeof value === 'string';
const ids: Check = (value) => Array.isArray(value) && value.every((id) => typeof id === 'string');
const stamp: Check = (value) => typeof value === 'object' && value !== null && typeof (value as { value?: unknown }).value === 'string';
const object: Check = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const flag: Check = (value) => typeof value === 'boolean';

/** What each field must be, named for the message. */
const A = {
  text: [text, 'a string'],
  ids: [ids, 'a list of ids'],
  stamp: [stamp, 'a timestamp { value }'],
  object: [object, 'an object'],
  flag: [flag, 'true or false'],
} as const;

/** The fields every record of a collection must have, and what they must be. */
const REQUIRED: Readonly<Record<CollectionName, Readonly<Record<string, readonly [Check, string]>>>> = {
  conversations: {
    id: A.text,
    created: A.stamp,
    updated: A.stamp,
    type: A.text,
    messages: A.ids,
    annotations: A.ids,
    anchors: A.ids,
    assets: A.ids,
    websites: A.ids,
    summaries: A.ids,
    groundingMessages: A.ids,
    groundingRanges: A.ids,
  },
  messages: { id: A.text, created: A.stamp, updated: A.stamp, conversation: A.text, role: A.text, groundedConversations: A.ids },
  annotations: { id: A.text, created: A.stamp, updated: A.stamp, type: A.text, text: A.text, messages: A.ids },
  anchors: { id: A.text, created: A.stamp, updated: A.stamp, type: A.text, fullpath: A.text, point: A.text, conversations: A.ids },
  assets: { id: A.text, created: A.stamp, updated: A.stamp, creator: A.text, mechanism: A.text, format: A.text, conversations: A.ids },
  websites: { id: A.text, created: A.stamp, updated: A.stamp, url: A.text, name: A.text, conversations: A.ids },
  workstreamSummaries: { id: A.text, created: A.stamp, updated: A.stamp, name: A.text, model: A.object, conversations: A.ids },
  ranges: { id: A.text, created: A.stamp, updated: A.stamp, conversations: A.ids },
  models: { id: A.text, version: A.text, created: A.stamp, name: A.text, cloud: A.flag, type: A.text, usage: A.text },
};

/**
 * What is wrong with a stored record of `collection`, or undefined when it has every field the
 * service relies on. Checked when a store opens, so a damaged file stops the start with a clear
 * error instead of failing later reads.
 */
export function recordProblem(collection: CollectionName, record: unknown): string | undefined {
  if (!object(record)) return `a ${collection} record must be an object`;
  for (const [field, [check, what]] of Object.entries(REQUIRED[collection])) {
    if (!check((record as Record<string, unknown>)[field])) {
      const id = (record as { id?: unknown }).id;
      return `the ${collection} record ${typeof id === 'string' ? `"${id}"` : '(without an id)'} lacks "${field}" (${what})`;
    }
  }
  return undefined;
}
