import type { ReadView } from '../ports.js';
import type { ConversationRecord } from '../records.js';

/**
 * The version stamps of a conversation and of its messages and annotations, read before the
 * records themselves: if one is written between the two reads, the stamps are older than what was
 * rendered, and the cache misses once too often, never answers what is no longer true.
 */
export interface ConversationStamps {
  readonly conversation: ConversationRecord;
  readonly version: number | undefined;
  /**
   * The messages the answer shows, whose stamps `messages` holds: all of the conversation's for
   * the conversation itself, the page's (and the one after it) for a page of its messages. A
   * message added to or removed from the conversation changes the conversation's own version, so
   * a page need not be checked against the messages outside it.
   */
  readonly messageIds: readonly string[];
  readonly messages: readonly (number | undefined)[];
  readonly annotations: readonly (number | undefined)[];
}

/** The stamps of conversation `id` and all its parts as `view` sees them now; undefined when it is gone. */
export async function readStamps(view: ReadView, id: string): Promise<ConversationStamps | undefined> {
  const [version] = await view.versions('conversations', [id]);
  const conversation = await view.get('conversations', id);
  if (!conversation) return undefined;
  const [messages, annotations] = await Promise.all([
    view.versions('messages', conversation.messages),
    view.versions('annotations', conversation.annotations),
  ]);
  return { conversation, version, messageIds: conversation.messages, messages, annotations };
}

/** A serialized answer; for a page of a list, with the offset of the next page when more follow. */
export interface CachedJson {
  readonly json: string;
  readonly next?: number;
}

interface Entry {
  readonly stamps: ConversationStamps;
  readonly answer: CachedJson;
  /** What it counts against the budget (see {@link costOf}). */
  readonly bytes: number;
  /** The read count when it last took the newest place (see {@link ConversationJsonCache.get}). */
  placed: number;
}

/** An answer's size before any is cached, to turn the byte budget into a count of conversations. */
const FIRST_GUESS_ENTRY_BYTES = 4096;

/**
 * Serialized answers about conversations (the conversation itself, pages of its messages), kept
 * while they are still true: an entry is valid exactly when the
 * version stamps of the conversation and of each of its messages and annotations are still those
 * it was rendered from (see {@link ReadView.versions}); checking that reads no record, far less
 * than reading and serializing them again. Least recently used entries
 * go first once the cache holds `maxBytes` of JSON.
 *
 * It follows no change feed (`Repository.changes`), on purpose: the stamps are read from the store
 * at each hit, so a write acknowledged by another process sharing the store is seen at once, where
 * a feed delivers it only when this process learns of it; a feed that invalidated entries would
 * need a `caughtUp` (a round trip, as the stamps are) before each hit to be as fresh.
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
  /** Reads and writes so far: how far an entry may have drifted from the newest end since it was placed there. */
  #reads = 0;

  constructor(private readonly maxBytes: number) {}

  /**
   * The answer `rendering` of conversation `id` (a short name for which answer it is, and how:
   * `f` the conversation without transferables, `mt0:100` a page of its messages), if cached and
   * still true.
   */
  async get(view: ReadView, id: string, rendering: string): Promise<CachedJson | undefined> {
    const key = `${rendering}|${id}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const { stamps } = entry;
    // Asked for together: a store shared by processes may answer them in one round trip.
    const [[version], messages, annotations] = await Promise.all([
      view.versions('conversations', [id]),
      view.versions('messages', stamps.messageIds),
      view.versions('annotations', stamps.conversation.annotations),
    ]);
    if (
      version === undefined ||
      version !== stamps.version ||
      !sameStamps(messages, stamps.messages) ||
      !sameStamps(annotations, stamps.annotations)
    ) {
      if (this.#entries.get(key) === entry) this.#remove(key, entry);
      // It was read again while cached: its next rendering is admitted at once.
      this.#rememberReadOnce(key);
      return undefined;
    }
    // Refresh its place in the least-recently-used order (unless it went meanwhile), but only
    // once it may have drifted into the older half: each read moves at most one entry ahead of
    // it, so until then it is not among the next to go. Moving a key on every hit is what costs:
    // V8's Map leaves a deleted entry in its bucket's chain until the table is rebuilt, so one
    // key deleted and set again and again makes its own lookups walk an ever longer chain (20 µs
    // a read at 10,000 entries).
    const reads = ++this.#reads;
    if (this.#entries.get(key) !== entry || reads - entry.placed <= this.#entries.size / 2) return entry.answer;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    entry.placed = reads;
    return entry.answer;
  }

  /** Keeps `answer` (its `rendering`, see {@link get}), rendered from the records whose stamps (read before them) are `stamps`. */
  set(stamps: ConversationStamps, rendering: string, answer: CachedJson): void {
    const bytes = costOf(stamps, answer);
    if (bytes > this.maxBytes || stamps.version === undefined) return;
    const key = `${rendering}|${stamps.conversation.id}`;
    const previous = this.#entries.get(key);
    if (previous) this.#remove(key, previous);
    else if (this.#bytes + bytes > this.maxBytes && !this.#admit(key)) return;
    this.#seenOnce.delete(key);
    this.#entries.set(key, { stamps, answer, bytes, placed: ++this.#reads });
    this.#bytes += bytes;
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
    this.#bytes -= entry.bytes;
  }
}

/**
 * What an entry counts against the byte budget: its text, and the stamps it keeps to be checked
 * (a number each; the ids are the conversation's own lists, or a page's few).
 */
function costOf(stamps: ConversationStamps, answer: CachedJson): number {
  return answer.json.length + 8 * (stamps.messages.length + stamps.annotations.length);
}

function sameStamps(now: readonly (number | undefined)[], then: readonly (number | undefined)[]): boolean {
  if (now.length !== then.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] === undefined || now[i] !== then[i]) return false;
  return true;
}
