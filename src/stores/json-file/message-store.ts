import { deepFreeze } from '../../frozen.js';
import type { Page, PageRequest } from '../../ports.js';
import type { ConversationRecord, MessageRecord } from '../../records.js';
import { Slices } from '../../slices.js';
import type { RecordSpan } from './journal.js';
import type { HintLine } from './message-files.js';
import { MessageReader } from './message-files.js';
import { type Location, MessageIndex } from './message-index.js';

/**
 * A message written (or deleted, `record: null`) whose bytes the keydir does not address yet. Held
 * writes of one message form a chain, newest first: when a write fails, the one below it is what
 * the message is again.
 */
interface Unsaved {
  readonly record: MessageRecord | null;
  readonly version: number;
  readonly order: number;
  /** The journal entry that wrote it (entries replayed at open keep theirs). */
  readonly seq: number;
  /** The held write it replaced, until that one is on disk. */
  below: Unsaved | undefined;
}

/** Messages read at once between two looks at the clock (see {@link MessageStore.getManyInSlices}). */
const SLICE_BATCH = 256;

/** Parsed messages kept after a read: a conversation read again soon is not parsed again. */
const CACHED_MESSAGES = 4096;

/** One message as a compaction found it: its record (not on disk yet, or not where it may stay) or its place. */
export type CapturedMessage =
  | { readonly id: string; readonly order: number; readonly unsaved: Unsaved; readonly record: MessageRecord }
  | { readonly id: string; readonly order: number; readonly location: Location };

/** What a compaction captured: each conversation's messages, index for index, and the messages no conversation lists. */
export interface CapturedMessages {
  readonly byConversation: (CapturedMessage | undefined)[][];
  readonly unlisted: CapturedMessage[];
}

/**
 * The messages of the JSON-file store: on disk, in the journal and in message files, found through
 * the keydir ({@link MessageIndex}); a message is read (and parsed) when asked for. Messages just
 * written are held until their journal line is on disk, then addressed there; messages replayed
 * from the journal at open are held until the next compaction writes them to a message file.
 */
export class MessageStore {
  readonly index = new MessageIndex();
  readonly reader: MessageReader;
  readonly #unsaved = new Map<string, Unsaved>();
  readonly #cache = new Map<string, MessageRecord>();

  constructor(readonly file: string) {
    this.reader = new MessageReader(file);
  }

  /**
   * {@link getMany}, a batch at a time, giving other clients a turn when a slice has run its time:
   * reading and parsing the 20,000 messages of a long conversation takes tens of milliseconds.
   */
  async getManyInSlices(ids: readonly string[]): Promise<(MessageRecord | undefined)[]> {
    if (ids.length <= SLICE_BATCH) return this.getMany(ids);
    const slices = new Slices();
    const found: (MessageRecord | undefined)[] = [];
    for (let start = 0; start < ids.length; start += SLICE_BATCH) {
      const batch = this.getMany(ids.slice(start, start + SLICE_BATCH));
      for (const record of batch) found.push(record);
      if (slices.due) await slices.next();
    }
    return found;
  }

  /** The records of these ids, index for index; undefined where one is missing. */
  getMany(ids: readonly string[]): (MessageRecord | undefined)[] {
    const found: (MessageRecord | undefined)[] = new Array(ids.length);
    const missing: number[] = [];
    const locations: Location[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const unsaved = this.#unsaved.get(id);
      if (unsaved) {
        found[i] = unsaved.record ?? undefined;
        continue;
      }
      const cached = this.#cache.get(id);
      if (cached) {
        found[i] = cached;
        continue;
      }
      const location = this.index.location(id);
      if (!location) continue;
      missing.push(i);
      locations.push(location);
    }
    if (missing.length === 0) return found;
    const values = this.reader.read(locations);
    for (let j = 0; j < missing.length; j++) {
      const id = ids[missing[j]!]!;
      const record = this.#checked(values[j], id, locations[j]!);
      found[missing[j]!] = record;
      this.#remember(id, record);
    }
    return found;
  }

  /** The record read for `id`, frozen; an error naming the file if it is not that message. */
  #checked(value: unknown, id: string, at: Location): MessageRecord {
    const record = value as MessageRecord | undefined;
    // Its fields were checked when it was written (or loaded); a record that is not the one the
    // keydir names means the file was changed under the store.
    if (record?.id !== id) {
      throw new Error(
        `The message file ${this.reader.pathOf(at.file)} is damaged at byte ${at.offset}: ${record === undefined ? 'the record does not parse' : `it is not message "${id}"`}. See the README on recovery.`,
      );
    }
    return deepFreeze(record);
  }

  #remember(id: string, record: MessageRecord): void {
    if (this.#cache.has(id)) this.#cache.delete(id);
    else if (this.#cache.size >= CACHED_MESSAGES) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(id, record);
  }

  versions(ids: readonly string[]): (number | undefined)[] {
    return ids.map((id) => {
      const unsaved = this.#unsaved.get(id);
      if (unsaved) return unsaved.record ? unsaved.version : undefined;
      return this.index.version(id);
    });
  }

  count(): number {
    let count = this.index.size;
    for (const [id, unsaved] of this.#unsaved) count += Number(unsaved.record !== null) - Number(this.index.has(id));
    return count;
  }

  /** A page of messages in insertion order; the cursor is the last one's order number. */
  list(page: PageRequest = {}): Page<MessageRecord> {
    const after = page.after === undefined ? -Infinity : Number(page.after);
    if (Number.isNaN(after)) throw new TypeError(`"${page.after}" is not a cursor this store gave out.`);
    const entries: [string, number][] = [];
    for (const id of this.index.ids()) {
      const unsaved = this.#unsaved.get(id);
      if (unsaved?.record === null) continue;
      entries.push([id, this.index.order(id)!]);
    }
    for (const [id, unsaved] of this.#unsaved) if (unsaved.record && !this.index.has(id)) entries.push([id, unsaved.order]);
    entries.sort((a, b) => a[1] - b[1]);
    const start = entries.findIndex(([, order]) => order > after);
    const from = (start === -1 ? entries.length : start) + (page.offset ?? 0);
    const to = Math.min(entries.length, from + (page.limit ?? Infinity));
    const chosen = entries.slice(from, to);
    const records = this.getMany(chosen.map(([id]) => id)) as MessageRecord[];
    return to < entries.length && chosen.length > 0 ? { records, next: String(chosen.at(-1)![1]) } : { records };
  }

  /** A committed write of journal entry `seq`, held until {@link settle} (or a compaction) addresses it on disk. */
  hold(id: string, record: MessageRecord | null, seq: number): void {
    const below = this.#unsaved.get(id);
    const order = below?.order ?? this.index.order(id) ?? this.index.nextOrder();
    this.#unsaved.set(id, { record, version: this.index.nextVersion(), order, seq, below });
    this.#cache.delete(id);
  }

  /**
   * Entry `seq`'s line is on disk at `line` (its records at `spans` within it): the keydir
   * addresses them there, and that write and the older ones held below it are let go (a later
   * write still held stays on top). Settles apply in the order they are asked for; a large one
   * (a create of 20,000 messages) a batch at a time, giving other clients a turn: until a message
   * is settled it is read from memory, so reads meanwhile see it either way.
   */
  settle(seq: number, ids: readonly string[], line: { file: number; offset: number }, spans: readonly RecordSpan[]): Promise<void> {
    const run = () => this.#settleInSlices(seq, ids, line, spans);
    // The usual write (a few messages, nothing waiting) settles at once.
    if (!this.#settling && ids.length <= SLICE_BATCH) {
      this.#settleBatch(seq, ids, line, new Map(spans.map((span) => [span.id, span])));
      return Promise.resolve();
    }
    const settled = (this.#settling ?? Promise.resolve()).then(run);
    const tail = settled.finally(() => {
      if (this.#settling === tail) this.#settling = undefined;
    });
    this.#settling = tail;
    return settled;
  }

  #settling: Promise<void> | undefined;

  async #settleInSlices(seq: number, ids: readonly string[], line: { file: number; offset: number }, spans: readonly RecordSpan[]) {
    const slices = new Slices();
    const byId = new Map(spans.map((span) => [span.id, span]));
    for (let start = 0; start < ids.length; start += SLICE_BATCH) {
      this.#settleBatch(seq, ids.slice(start, start + SLICE_BATCH), line, byId);
      if (slices.due) await slices.next();
    }
  }

  #settleBatch(seq: number, ids: readonly string[], line: { file: number; offset: number }, byId: ReadonlyMap<string, RecordSpan>): void {
    for (const id of ids) {
      const top = this.#unsaved.get(id);
      const written = this.#find(top, (held) => held.seq === seq);
      const span = byId.get(id);
      if (span) {
        this.index.set(id, { file: line.file, offset: line.offset + span.start, length: span.length }, written?.version, written?.order);
      } else {
        this.index.delete(id);
      }
      this.#dropFrom(id, top, written);
      if (top === written && written?.record) this.#remember(id, written.record);
    }
  }

  /** Undoes what entries from `seq` on held: their journal lines were never written. */
  rollBack(seq: number): void {
    for (const [id, top] of this.#unsaved) {
      if (top.seq < seq) continue;
      let kept = top.below;
      while (kept && kept.seq >= seq) kept = kept.below;
      if (kept) this.#unsaved.set(id, kept);
      else this.#unsaved.delete(id);
      this.#cache.delete(id);
    }
  }

  /** The first held write of the chain from `top` that `test` accepts. */
  #find(top: Unsaved | undefined, test: (held: Unsaved) => boolean): Unsaved | undefined {
    for (let held = top; held; held = held.below) if (test(held)) return held;
    return undefined;
  }

  /** Lets go of `from` and every write below it (the keydir now has what they held, or newer). */
  #dropFrom(id: string, top: Unsaved | undefined, from: Unsaved | undefined): void {
    if (!top || !from) return;
    if (top === from) {
      this.#unsaved.delete(id);
      return;
    }
    for (let held = top; held.below; held = held.below) {
      if (held.below === from) {
        held.below = undefined;
        return;
      }
    }
  }

  /** The current record of `id`, for replaying a patch at open. */
  current(id: string): MessageRecord | undefined {
    return this.getMany([id])[0];
  }

  /**
   * Fills the keydir from one hint file line, aligned with its conversation's `messages`
   * (`expected`: how many messages the whole file holds, to size the keydir once).
   */
  loadHintLine(line: HintLine, conversation: ConversationRecord | undefined, where: string): void {
    const ids = line.c === null ? line.ids : conversation?.messages;
    if (!ids || ids.length * 4 !== line.at.length) {
      throw new Error(
        `The hint file ${where} does not match the snapshot (conversation "${line.c}"). Nothing was changed; see the README on recovery.`,
      );
    }
    const at = line.at;
    for (let i = 0; i < ids.length; i++) {
      const file = at[4 * i]!;
      if (file !== 0) this.index.set(ids[i]!, { file, offset: at[4 * i + 1]!, length: at[4 * i + 2]! }, undefined, at[4 * i + 3]!);
    }
  }

  /**
   * Each message of `conversations` as it is now, index for index with their `messages`: held
   * (with its record), on disk, or undefined where one is missing; and the messages no
   * conversation lists (only a Repository used directly stores such messages), so they are kept too.
   */
  capture(conversations: readonly ConversationRecord[]): CapturedMessages {
    const listed = new Set<string>();
    const byConversation = conversations.map((conversation) =>
      conversation.messages.map((id): CapturedMessage | undefined => {
        listed.add(id);
        return this.#captureOne(id);
      }),
    );
    const unlisted: CapturedMessage[] = [];
    const seen = (id: string) => {
      if (listed.has(id)) return;
      listed.add(id);
      const message = this.#captureOne(id);
      if (message) unlisted.push(message);
    };
    for (const id of this.index.ids()) seen(id);
    for (const id of this.#unsaved.keys()) seen(id);
    return { byConversation, unlisted };
  }

  #captureOne(id: string): CapturedMessage | undefined {
    const unsaved = this.#unsaved.get(id);
    if (unsaved) return unsaved.record ? { id, order: unsaved.order, unsaved, record: unsaved.record } : undefined;
    const location = this.index.location(id);
    return location && { id, order: this.index.order(id)!, location };
  }

  /**
   * A compaction wrote `message` to `to`: the keydir addresses it there, unless it was written
   * again since it was captured.
   */
  moved(message: CapturedMessage, to: Location): void {
    if ('location' in message) {
      this.index.move(message.id, message.location, to);
      return;
    }
    const { unsaved } = message;
    const top = this.#unsaved.get(message.id);
    if (this.#find(top, (held) => held === unsaved)) {
      // Still held (perhaps under a later write not yet on disk): the message file now has it,
      // and it is what the message falls back to if that later write fails.
      this.index.set(message.id, to, unsaved.version, unsaved.order);
      this.#dropFrom(message.id, top, unsaved);
    } else if (this.index.version(message.id) === unsaved.version) {
      // Settled meanwhile, in a journal file: the same bytes, now in the message file.
      const at = this.index.location(message.id)!;
      this.index.move(message.id, at, to);
    }
    // Otherwise a later write or a deletion is on disk: it stays.
  }
}
