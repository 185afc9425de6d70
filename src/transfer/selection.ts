import { notFound } from '../errors.js';
import { LINK, type Link } from '../links.js';
import type { ReadView } from '../ports.js';
import type { CollectionName, ConversationRecord } from '../records.js';
import { EXPORTED_COLLECTIONS } from './format.js';

type Fields = Record<string, unknown>;

/** The parts of a conversation, exported with it whole: its messages and annotations. */
const PARTS: ReadonlySet<CollectionName> = new Set(['conversations', 'messages', 'annotations']);

/**
 * The records an export of some conversations holds, by collection, in the store's order of
 * collections: the conversations, their messages and annotations, the records these link to
 * (anchors, assets, tags, …) and the custom models they name. A message or annotation of another
 * conversation (one that grounds a chosen one, say) is not taken: it belongs to its own
 * conversation, and an import drops the link to it unless the store holds it. NOT_FOUND for an
 * unknown conversation. Held in memory: a selection is what a person picked.
 */
export async function selectRecords(view: ReadView, conversationIds: readonly string[]): Promise<Map<CollectionName, Fields[]>> {
  const ids = [...new Set(conversationIds)];
  const conversations = await view.getMany('conversations', ids);
  conversations.forEach((record, i) => {
    if (!record) throw notFound('conversation', ids[i]!);
  });
  const chosen = new Map<CollectionName, Map<string, Fields>>();
  const add = (collection: CollectionName, records: readonly (object | undefined)[]) => {
    let byId = chosen.get(collection);
    if (!byId) chosen.set(collection, (byId = new Map()));
    for (const record of records) if (record) byId.set((record as { id: string }).id, record as Fields);
  };
  const found = conversations as ConversationRecord[];
  add('conversations', found);
  add(
    'messages',
    await view.getMany(
      'messages',
      found.flatMap((c) => c.messages),
    ),
  );
  add(
    'annotations',
    await view.getMany(
      'annotations',
      found.flatMap((c) => c.annotations),
    ),
  );

  // The records the parts link to, a collection at a time.
  const wanted = new Map<CollectionName, Set<string>>();
  for (const link of Object.values(LINK as Record<string, Link>)) {
    for (const [end, other] of [
      [link.a, link.b],
      [link.b, link.a],
    ] as const) {
      if (!PARTS.has(end.collection) || PARTS.has(other.collection)) continue;
      for (const record of chosen.get(end.collection)?.values() ?? []) {
        const value = record[end.field];
        const named = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
        let set = wanted.get(other.collection);
        if (!set) wanted.set(other.collection, (set = new Set()));
        for (const id of named) if (typeof id === 'string') set.add(id);
      }
    }
  }
  // Custom models a conversation, a message or an annotation names (built-in ones are not records).
  const models = new Set<string>();
  for (const collection of PARTS) {
    for (const record of chosen.get(collection)?.values() ?? []) {
      const id = (record.model as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string') models.add(id);
    }
  }
  wanted.set('models', models);
  for (const [collection, set] of wanted) add(collection, await view.getMany(collection, [...set]));

  const ordered = new Map<CollectionName, Fields[]>();
  for (const collection of EXPORTED_COLLECTIONS) {
    const records = chosen.get(collection);
    if (records && records.size > 0) ordered.set(collection, [...records.values()]);
  }
  return ordered;
}
