import type { ReadView } from '../ports.js';
import type { ConversationRecord } from '../records.js';

interface Entry {
  readonly conversation: ConversationRecord;
  /** The message and annotation records the JSON was rendered from, in the conversation's order. */
  readonly messages: readonly object[];
  readonly annotations: readonly object[];
  readonly json: string;
}

/** An answer's size before any is cached, to turn the byte budget into a count of conversations. */
const FIRST_GUESS_ENTRY_BYTES = 4096;

/**
 * Serialized conversations, kept while they are still true. Stored records are immutable and
 * replaced on every change, so an entry is valid exactly when the conversation and each of its
 * messages and annotations are still the very objects it was rendered from: checking that costs
 * a few map lookups, far less than rendering and serializing again. Least recently used entries
 * go first once the cache holds `maxBytes` of JSON.
 *
 * While there is room, every answer is kept. Once the cache is full, a new answer displaces
 * others only if its conversation was read recently, within as many reads as the cache holds
 * entries: an entry is hit only when its conversation comes back that soon, so reads spread over
 * more conversations than fit (a scan, or a large store read at random) would otherwise evict
 * every entry before its reuse, and that churn of large strings costs the garbage collector more
 * than the cache saves. The recent reads are remembered by id only.
 */
export class ConversationJsonCache {
  readonly #entries = new Map<string, Entry>();
  /** Keys read recently and not cached, oldest first. */
  readonly #seenOnce = new Set<string>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(view: ReadView, id: string, transferables: boolean): string | undefined {
    const key = `${transferables ? 't' : 'f'}${id}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const conversation = view.get('conversations', id);
    if (
      conversation !== entry.conversation ||
      !sameRecords(view, 'messages', conversation.messages, entry.messages) ||
      !sameRecords(view, 'annotations', conversation.annotations, entry.annotations)
    ) {
      this.#remove(key, entry);
      // It was read again while cached: its next rendering is admitted at once.
      this.#rememberReadOnce(key);
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
    else if (this.#bytes + json.length > this.maxBytes && !this.#admit(key)) return;
    this.#seenOnce.delete(key);
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

  /** Whether `key` was read once recently; if not, remembers that it now has been. */
  #admit(key: string): boolean {
    if (this.#seenOnce.delete(key)) return true;
    this.#rememberReadOnce(key);
    return false;
  }

  #rememberReadOnce(key: string): void {
    // Deleted first, so a key read again moves to the newest end.
    this.#seenOnce.delete(key);
    this.#seenOnce.add(key);
    // As many as the cache holds entries, at the size of those it holds.
    const entryBytes = this.#entries.size > 0 ? this.#bytes / this.#entries.size : FIRST_GUESS_ENTRY_BYTES;
    const window = Math.max(1, Math.ceil(this.maxBytes / entryBytes));
    while (this.#seenOnce.size > window) this.#seenOnce.delete(this.#seenOnce.values().next().value!);
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
