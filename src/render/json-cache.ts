import type { ChangeBatch, ChangeFeed, ReadView } from '../ports.js';
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
export interface RenderedJson {
  readonly json: string;
  readonly next?: number;
}

/**
 * A cached answer: its JSON encoded as UTF-8 once, when it was kept, so that a transport sends it
 * as it is (its length known before it is sent), and the entry holds one copy of it.
 */
export interface CachedJson {
  readonly bytes: Uint8Array;
  readonly next?: number;
}

/**
 * What a hit is checked against, kept in place of the records it was rendered from (an entry
 * keeps no record alive): the ids of the conversation's parts the answer shows and, unless the
 * cache follows a local feed, their stamps.
 */
interface Check {
  readonly messageIds: readonly string[];
  readonly annotationIds: readonly string[];
  readonly stamps?: {
    readonly version: number;
    readonly messages: readonly (number | undefined)[];
    readonly annotations: readonly (number | undefined)[];
  };
}

interface Entry {
  readonly conversation: string;
  readonly check: Check;
  readonly answer: CachedJson;
  /** What it counts against the budget (see {@link costOf}). */
  readonly bytes: number;
  /** The read count when it last took the newest place (see {@link ConversationJsonCache.get}). */
  placed: number;
}

/**
 * A render of a conversation's answer under way: it may be kept only if no write to the
 * conversation was delivered meanwhile (see {@link ConversationJsonCache.begin}).
 */
export interface Render {
  readonly conversation: string;
  stale: boolean;
}

const ENCODER = new TextEncoder();

/** An answer's size before any is cached, to turn the byte budget into a count of conversations. */
const FIRST_GUESS_ENTRY_BYTES = 4096;

/**
 * Serialized answers about conversations (the conversation itself, pages of its messages), kept
 * while they are still true. Least recently used entries go first once the cache holds
 * `maxBytes` of JSON.
 *
 * How it knows an entry is still true depends on the store's change feed:
 * - **A local feed** ({@link ChangeFeed.local}: the memory and JSON-file stores) tells of every
 *   write before it is acknowledged. The cache drops a conversation's entries when a batch
 *   touches the conversation, one of its messages or one of its annotations, and a hit reads
 *   nothing from the store. A render under way when such a batch comes is not kept (it may have
 *   read the records before the write); a write the store undid after reads could see it empties
 *   the cache.
 * - **Otherwise** (PostgreSQL, shared by processes; a store without a feed) an entry is valid
 *   exactly when the version stamps of the conversation and of each of its messages and
 *   annotations are still those it was rendered from (see {@link ReadView.versions}), read from
 *   the store at each hit: a write acknowledged by another process is seen at once, where a feed
 *   delivers it only when this process learns of it (a feed that invalidated entries would need a
 *   `caughtUp`, a round trip as the stamps are, before each hit to be as fresh).
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
  /** Each conversation's keys in {@link #entries}. */
  readonly #keys = new Map<string, Set<string>>();
  /** Renders under way (local feed only), by conversation. */
  readonly #renders = new Map<string, Set<Render>>();
  /** Keys read recently and not cached, oldest first. */
  readonly #seenOnce = new Set<string>();
  #bytes = 0;
  /** Reads and writes so far: how far an entry may have drifted from the newest end since it was placed there. */
  #reads = 0;
  /** Whether entries follow a local feed (no stamps read at a hit). */
  readonly #local: boolean;
  readonly #stop: (() => void)[] = [];

  /**
   * @param feed The store's change feed: when it is local ({@link ChangeFeed.local}), the cache
   *   follows it (call {@link close} to stop); otherwise it is not used.
   */
  constructor(
    private readonly maxBytes: number,
    feed?: ChangeFeed,
  ) {
    this.#local = feed?.local !== undefined && maxBytes > 0;
    if (feed?.local && maxBytes > 0) {
      this.#stop.push(feed.subscribe((batch) => this.#follow(batch)));
      this.#stop.push(feed.local.onUndone(() => this.#clear()));
    }
  }

  /** Whether a hit needs no read of the store: {@link peek} answers it. */
  get local(): boolean {
    return this.#local;
  }

  /** Stops following the feed. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
  }

  /**
   * With a local feed, the cached answer `rendering` of conversation `id` (see {@link get}), with no
   * read of the store; otherwise undefined (call {@link get}).
   */
  peek(id: string, rendering: string): CachedJson | undefined {
    if (!this.#local) return undefined;
    const key = `${rendering}|${id}`;
    const entry = this.#entries.get(key);
    return entry && this.#hit(key, entry);
  }

  /**
   * The answer `rendering` of conversation `id` (a short name for which answer it is, and how:
   * `f` the conversation without transferables, `mt0:100` a page of its messages), if cached and
   * still true.
   */
  async get(view: ReadView, id: string, rendering: string): Promise<CachedJson | undefined> {
    const key = `${rendering}|${id}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    const { stamps, messageIds, annotationIds } = entry.check;
    if (stamps) {
      // Asked for together: a store shared by processes may answer them in one round trip.
      const [[version], messages, annotations] = await Promise.all([
        view.versions('conversations', [id]),
        view.versions('messages', messageIds),
        view.versions('annotations', annotationIds),
      ]);
      if (version !== stamps.version || !sameStamps(messages, stamps.messages) || !sameStamps(annotations, stamps.annotations)) {
        if (this.#entries.get(key) === entry) this.#remove(key, entry);
        // It was read again while cached: its next rendering is admitted at once.
        this.#rememberReadOnce(key);
        return undefined;
      }
      // Gone meanwhile (evicted, or dropped by a write): still true, as just checked.
      if (this.#entries.get(key) !== entry) return entry.answer;
    }
    return this.#hit(key, entry);
  }

  #hit(key: string, entry: Entry): CachedJson {
    // Refresh its place in the least-recently-used order, but only once it may have drifted into
    // the older half: each read moves at most one entry ahead of it, so until then it is not
    // among the next to go. Moving a key on every hit is what costs: V8's Map leaves a deleted
    // entry in its bucket's chain until the table is rebuilt, so one key deleted and set again
    // and again makes its own lookups walk an ever longer chain (20 µs a read at 10,000 entries).
    const reads = ++this.#reads;
    if (reads - entry.placed <= this.#entries.size / 2) return entry.answer;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    entry.placed = reads;
    return entry.answer;
  }

  /**
   * Call before reading the records of an answer of conversation `id` that will be offered to
   * {@link set}, and {@link end} once done: with a local feed, a write to the conversation
   * delivered in between makes the answer stale, and it is not kept.
   */
  begin(id: string): Render {
    const render: Render = { conversation: id, stale: false };
    if (!this.#local) return render;
    const renders = this.#renders.get(id);
    if (renders) renders.add(render);
    else this.#renders.set(id, new Set([render]));
    return render;
  }

  /** Ends a render begun with {@link begin} (whether or not it was kept). */
  end(render: Render): void {
    const renders = this.#renders.get(render.conversation);
    if (renders?.delete(render) && renders.size === 0) this.#renders.delete(render.conversation);
  }

  /**
   * Keeps `answer` (its `rendering`, see {@link get}), rendered from the records whose stamps (read
   * before them) are `stamps`, in the render `render` (see {@link begin}). Answers the UTF-8 bytes
   * it keeps, for the caller to send rather than the text: an answer is encoded once, here or by
   * the transport. Whether it is kept is decided before it is encoded, so an answer refused (a
   * conversation read once, while the cache is full) is not encoded twice.
   */
  set(stamps: ConversationStamps, rendering: string, answer: RenderedJson, render: Render): Uint8Array | undefined {
    if (render.stale || stamps.version === undefined || render.conversation !== stamps.conversation.id) return undefined;
    const check: Check = {
      messageIds: stamps.messageIds,
      annotationIds: stamps.conversation.annotations,
      ...(this.#local ? {} : { stamps: { version: stamps.version, messages: stamps.messages, annotations: stamps.annotations } }),
    };
    const id = stamps.conversation.id;
    const key = `${rendering}|${id}`;
    const previous = this.#entries.get(key);
    // Its length in UTF-16 units: no more than its size in bytes (the same when it is ASCII).
    const atLeast = costOf(check, answer.json.length);
    if (atLeast > this.maxBytes) return undefined;
    if (!previous && this.#bytes + atLeast > this.maxBytes && !this.#admit(key)) return undefined;
    // Encoded into a buffer of its own: a small Buffer.from would share (and keep alive) a pooled 8 KiB slab.
    const kept: CachedJson = { bytes: ENCODER.encode(answer.json), ...(answer.next === undefined ? {} : { next: answer.next }) };
    const bytes = costOf(check, kept.bytes.byteLength);
    if (bytes > this.maxBytes) return undefined;
    if (previous) this.#remove(key, previous);
    this.#seenOnce.delete(key);
    this.#entries.set(key, { conversation: id, check, answer: kept, bytes, placed: ++this.#reads });
    const keys = this.#keys.get(id);
    if (keys) keys.add(key);
    else this.#keys.set(id, new Set([key]));
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#remove(oldest, entry);
    }
    return kept.bytes;
  }

  /** Drops what a committed batch makes stale: the entries of every conversation it touches. */
  #follow(batch: ChangeBatch): void {
    // Parts deleted, whose records no longer say their conversation.
    let orphans: Set<string> | undefined;
    for (const { collection, id, record } of batch.changes) {
      if (collection === 'conversations') this.#drop(id);
      else if (collection === 'messages' || collection === 'annotations') {
        const conversation = (record as { conversation?: string } | null)?.conversation;
        if (conversation) this.#drop(conversation);
        // A part moved away from a conversation, or deleted: its conversation's record is in the
        // batch too when the store's links are two-sided, but the cache does not rely on it.
        if (!record || !conversation) (orphans ??= new Set()).add(id);
      }
    }
    if (!orphans) return;
    for (const [key, entry] of this.#entries) {
      const { messageIds, annotationIds } = entry.check;
      if (messageIds.some((id) => orphans.has(id)) || annotationIds.some((id) => orphans.has(id))) this.#remove(key, entry);
    }
    // A render under way may show one of them: none is kept.
    for (const renders of this.#renders.values()) for (const render of renders) render.stale = true;
  }

  /** Drops conversation `id`'s entries, and keeps none of the renders of it under way. */
  #drop(id: string): void {
    const keys = this.#keys.get(id);
    if (keys) for (const key of [...keys]) this.#remove(key, this.#entries.get(key)!);
    const renders = this.#renders.get(id);
    if (renders) for (const render of renders) render.stale = true;
  }

  /** Drops every entry, and keeps none of the renders under way. */
  #clear(): void {
    this.#entries.clear();
    this.#keys.clear();
    this.#bytes = 0;
    for (const renders of this.#renders.values()) for (const render of renders) render.stale = true;
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
    const keys = this.#keys.get(entry.conversation);
    if (keys?.delete(key) && keys.size === 0) this.#keys.delete(entry.conversation);
  }
}

/**
 * What an entry counts against the byte budget: its bytes, and the stamps it keeps to be checked
 * (a number each; the ids are the conversation's own lists, or a page's few).
 */
function costOf(check: Check, answerBytes: number): number {
  const stamps = check.stamps ? check.stamps.messages.length + check.stamps.annotations.length : 0;
  return answerBytes + 8 * stamps;
}

function sameStamps(now: readonly (number | undefined)[], then: readonly (number | undefined)[]): boolean {
  if (now.length !== then.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] === undefined || now[i] !== then[i]) return false;
  return true;
}
