import type { ReadView } from '../ports.js';
import type { ConversationRecord } from '../records.js';

interface Entry {
  readonly conversation: ConversationRecord;
  /** The message and annotation records the JSON was rendered from, in the conversation's order. */
  readonly messages: readonly object[];
  readonly annotations: readonly object[];
  readonly json: string;
}

/**
 * Serialized conversations, kept while they are still true. Stored records are immutable and
 * replaced on every change, so an entry is valid exactly when the conversation and each of its
 * messages and annotations are still the very objects it was rendered from: checking that costs
 * a few map lookups, far less than rendering and serializing again. Least recently used entries
 * go first once the cache holds `maxBytes` of JSON.
 */
export class ConversationJsonCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(view: ReadView, id: string, transferables: boolean): string | undefined {
    const key = `${transferables ? 't' : 'f'}${id}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const conversation = view.get('conversations', id);
    if (conversation !== entry.conversation || !sameRecords(view, 'messages', conversation.messages, entry.messages) || !sameRecords(view, 'annotations', conversation.annotations, entry.annotations)) {
      this.#remove(key, entry);
      return undefined;
    }
    // Refresh its place in the least-recently-used order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.json;
  }

  set(view: ReadView, conversation: ConversationRecord, transferables: boolean, json: string): void {
    if (json.length > this.maxBytes) return;
    const key = `${transferables ? 't' : 'f'}${conversation.id}`;
    const previous = this.#entries.get(key);
    if (previous) this.#remove(key, previous);
    this.#entries.set(key, {
      conversation,
      messages: conversation.messages.map((id) => view.get('messages', id) as object),
      annotations: conversation.annotations.map((id) => view.get('annotations', id) as object),
      json,
    });
    this.#bytes += json.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest, entry);
    }
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.json.length;
  }
}

function sameRecords(view: ReadView, collection: 'messages' | 'annotations', ids: readonly string[], records: readonly object[]): boolean {
  if (ids.length !== records.length) return false;
  for (let i = 0; i < ids.length; i++) if (view.get(collection, ids[i]!) !== records[i]) return false;
  return true;
}
