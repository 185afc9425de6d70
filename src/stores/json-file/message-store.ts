import path from 'node:path';
import { type DamagedRecord, dataDamaged } from '../../errors.js';
import { deepFreeze } from '../../frozen.js';
import type { Page, PageRequest } from '../../ports.js';
import type { ConversationRecord, MessageRecord } from '../../records.js';
import { Slices } from '../../slices.js';
import { DamageLog } from './damage-log.js';
import type { RecordSpan } from './journal.js';
import { HINT_STRIDE, type HintLine, type HintLinePlace, hintPath } from './message-files.js';
import { type Location, lostLocation, MessageIndex } from './message-index.js';
import { MessageReader } from './message-reader.js';

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

/**
 * Parsed messages kept after a read: a conversation read again soon is not parsed again. As many
 * again are remembered as read once (see {@link MessageStore.#secondRead}); a power of two.
 */
const CACHED_MESSAGES = 4096;

const MAX_U32 = 0xffffffff;

/** Whether a value of a hint line is a whole number from 0 to `most` (a damaged line may hold anything). */
const isCount = (value: unknown, most: number): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= most;

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
  readonly damage: DamageLog;
  readonly #unsaved = new Map<string, Unsaved>();
  readonly #cache = new Map<string, MessageRecord>();
  /**
   * Messages read once lately and not cached, by keydir slot: cell `slot % CACHED_MESSAGES` holds
   * `slot + 1`. The next read of one caches it. A filter, not a Set of ids: a read spread over more
   * messages than the cache holds (every conversation in turn) would otherwise add and evict an id
   * of the Set per message read, a tenth of the read's cost. Two messages that share a cell
   * forget each other, as a Set of that size would forget the older one.
   */
  readonly #readOnce = new Int32Array(CACHED_MESSAGES);
  /**
   * Messages whose place came from a hint line that failed its checksum: the place may be what was
   * damaged, so a failed read of one names that line. Few (one line's worth), so a Map.
   */
  readonly #suspect = new Map<string, { readonly hint: number; readonly offset: number }>();
  /**
   * False while the keydir holds places from a hint of version 5, which has no checksums: until
   * the migration's compaction computes them, records are checked by parsing alone.
   */
  #checksums = true;

  constructor(
    readonly file: string,
    logger: { warn(message: string): void },
  ) {
    this.reader = new MessageReader(file);
    this.damage = new DamageLog(path.dirname(file), logger);
  }

  /**
   * {@link getMany}, a batch at a time, giving other clients a turn when a slice has run its time:
   * reading and parsing the 20,000 messages of a long conversation takes tens of milliseconds.
   */
  async getManyInSlices(ids: readonly string[]): Promise<(MessageRecord | undefined)[]> {
    if (ids.length <= SLICE_BATCH) return this.getMany(ids);
    const slices = new Slices();
    const found: (MessageRecord | undefined)[] = [];
    // Every batch is read, damage or not, so one error names every damaged message of the read.
    const damaged: DamagedRecord[] = [];
    for (let start = 0; start < ids.length; start += SLICE_BATCH) {
      const batch = this.#read(ids.slice(start, start + SLICE_BATCH), damaged);
      for (const record of batch) found.push(record);
      if (slices.due) await slices.next();
    }
    if (damaged.length > 0) throw dataDamaged(damaged);
    return found;
  }

  /**
   * The records of these ids, index for index; undefined where one is missing. DATA_DAMAGED when
   * any is damaged on disk, naming every damaged one.
   */
  getMany(ids: readonly string[]): (MessageRecord | undefined)[] {
    const damaged: DamagedRecord[] = [];
    const found = this.#read(ids, damaged);
    if (damaged.length > 0) throw dataDamaged(damaged);
    return found;
  }

  /** {@link getMany}, adding the damaged records to `damaged` (undefined in the answer). */
  #read(ids: readonly string[], damaged: DamagedRecord[]): (MessageRecord | undefined)[] {
    const found: (MessageRecord | undefined)[] = new Array(ids.length);
    const missing: number[] = [];
    const locations: Location[] = [];
    const slots: number[] = [];
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
      const slot = this.index.slotOf(id);
      if (slot === undefined) continue;
      missing.push(i);
      locations.push(this.index.locationAt(slot));
      slots.push(slot);
    }
    if (missing.length === 0) return found;
    const { values, problems } = this.reader.read(locations, this.#checksums);
    for (let j = 0; j < missing.length; j++) {
      const id = ids[missing[j]!]!;
      const at = locations[j]!;
      const record = values[j] as MessageRecord | undefined;
      // Its fields were checked when it was written (or loaded); a record that is not the one the
      // keydir names means the file was changed under the store.
      const problem = at.file === 0 ? 'lost' : (problems[j] ?? (record?.id === id ? undefined : `it is not message "${id}"`));
      if (problem) {
        damaged.push(this.#damaged(id, at, problem));
        continue;
      }
      found[missing[j]!] = deepFreeze(record!);
      if (this.#secondRead(slots[j]!)) this.#remember(id, found[missing[j]!]!);
    }
    return found;
  }

  /** The damage of message `id` at `at` (`problem`: what the read found), named and logged. */
  #damaged(id: string, at: Location, problem: string): DamagedRecord {
    const name = (file: string) => path.basename(file);
    const suspect = this.#suspect.get(id);
    let damage: DamagedRecord;
    if (at.file === 0) {
      const hint = name(hintPath(this.file, at.length));
      damage = {
        resource: 'message',
        id,
        file: hint,
        offset: at.offset,
        message: `The hint file ${hint} was damaged at byte ${at.offset}: where message "${id}" is on disk was lost with it. See the README on recovery.`,
      };
    } else if (suspect) {
      const hint = name(hintPath(this.file, suspect.hint));
      damage = {
        resource: 'message',
        id,
        file: hint,
        offset: suspect.offset,
        message: `The hint file ${hint} is damaged at byte ${suspect.offset}: it says message "${id}" is at byte ${at.offset} of ${name(this.reader.pathOf(at.file))}, where ${problem}. See the README on recovery.`,
      };
    } else {
      const file = name(this.reader.pathOf(at.file));
      damage = {
        resource: 'message',
        id,
        file,
        offset: at.offset,
        message: `The ${at.file > 0 ? 'journal' : 'message file'} ${file} is damaged at byte ${at.offset}: ${problem} (message "${id}"). See the README on recovery.`,
      };
    }
    this.damage.record(damage);
    return damage;
  }

  /**
   * Checks the messages of keydir slots `from` to `from + count` against their checksums (no
   * parse), and records the damaged ones; answers how many messages were seen (held writes, which
   * replace what is on disk, and lost places are not read) and the slot to go on from (0 once
   * all were seen). For the check that runs after the start.
   */
  checkSlice(from: number, count: number): { checked: number; next: number } {
    const { ids, locations, next } = this.index.slice(from, count);
    const picked: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      // Held writes replace what is on disk; lost places are known damaged already.
      if (!this.#unsaved.has(ids[i]!) && locations[i]!.file !== 0) picked.push(i);
    }
    if (!this.#checksums) return { checked: ids.length, next };
    const problems = this.reader.check(picked.map((i) => locations[i]!));
    problems.forEach((problem, j) => {
      if (problem) this.#damaged(ids[picked[j]!]!, locations[picked[j]!]!, problem);
    });
    return { checked: ids.length, next };
  }

  /**
   * Whether the message of keydir slot `slot`, just read from disk, was read once lately (and is
   * now to be cached); if not, it is remembered as read once. A record read from disk is cached on
   * its second read only (written ones at once: they are about to be read): a scan that reads each
   * message once (an export, a backup, a search's long answer) would otherwise push out the
   * conversations being read again, and, every record it read living long enough to reach V8's old
   * space, grow the heap by a hundred MiB before a full collection (an export of 200,000 messages).
   * Records read once are left to the young generation.
   */
  #secondRead(slot: number): boolean {
    const cell = slot & (CACHED_MESSAGES - 1);
    if (this.#readOnce[cell] === slot + 1) {
      this.#readOnce[cell] = 0;
      return true;
    }
    this.#readOnce[cell] = slot + 1;
    return false;
  }

  /** Caches `record`, dropping the least recently cached one when full. */
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
    const { ids, orders } = this.#inOrder();
    // The first entry past the cursor, by binary search: orders are ascending.
    let low = 0;
    let high = orders.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (orders[middle]! > after) high = middle;
      else low = middle + 1;
    }
    let skip = page.offset ?? 0;
    const limit = page.limit ?? Infinity;
    const chosen: string[] = [];
    let last = 0;
    let index = low;
    for (; index < ids.length && chosen.length < limit; index++) {
      const id = ids[index]!;
      // Deleted since, or placed anew (deleted and written again): not, or not here, a message now.
      if (this.#orderOf(id) !== orders[index]) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      chosen.push(id);
      last = orders[index]!;
    }
    const records = this.getMany(chosen) as MessageRecord[];
    let more = false;
    for (; index < ids.length && !more; index++) more = this.#orderOf(ids[index]!) === orders[index];
    return more && chosen.length > 0 ? { records, next: String(last) } : { records };
  }

  /**
   * Every message id with its place, by place, as of the last list; a new message takes the place
   * after every other (see hold), so it is appended, and one deleted is left in and skipped when
   * read: a scan of the whole collection a page at a time sorts once, not once a page. Made again
   * when places were given out some other way (messages found lost at open).
   */
  #listing: { ids: string[]; orders: number[]; last: number } | undefined;

  #inOrder(): { ids: string[]; orders: number[] } {
    if (this.#listing?.last === this.index.lastOrder) return this.#listing;
    const entries: [string, number][] = [];
    for (const id of this.index.ids()) {
      const order = this.#orderOf(id);
      if (order !== undefined) entries.push([id, order]);
    }
    for (const [id, unsaved] of this.#unsaved) if (unsaved.record && !this.index.has(id)) entries.push([id, unsaved.order]);
    entries.sort((a, b) => a[1] - b[1]);
    this.#listing = { ids: entries.map(([id]) => id), orders: entries.map(([, order]) => order), last: this.index.lastOrder };
    return this.#listing;
  }

  /** The place of message `id` now, or undefined when there is none (deleted, or a deletion held). */
  #orderOf(id: string): number | undefined {
    const unsaved = this.#unsaved.get(id);
    if (unsaved) return unsaved.record === null ? undefined : unsaved.order;
    return this.index.order(id);
  }

  /** A committed write of journal entry `seq`, held until {@link settle} (or a compaction) addresses it on disk. */
  hold(id: string, record: MessageRecord | null, seq: number): void {
    const below = this.#unsaved.get(id);
    let order = below?.order ?? this.index.order(id);
    if (order === undefined) {
      const listed = this.#listing?.last === this.index.lastOrder;
      order = this.index.nextOrder();
      // After every place listed: the listing grows by it, and stays whole.
      if (listed) {
        this.#listing!.ids.push(id);
        this.#listing!.orders.push(order);
        this.#listing!.last = order;
      }
    }
    this.#unsaved.set(id, { record, version: this.index.nextVersion(), order, seq, below });
    this.#cache.delete(id);
    // Written again or deleted: what was damaged is no longer what the store holds.
    this.damage.forget(id);
    this.#suspect.delete(id);
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
        this.index.set(
          id,
          { file: line.file, offset: line.offset + span.start, length: span.length, crc: span.crc },
          written?.version,
          written?.order,
        );
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
   * Fills the keydir from one line of hint file number `hint` (of format `version`), aligned with
   * its conversation's `messages`. A message whose numbers are not a place in one of
   * `messageFiles` is lost (its place is gone with the damage); those of a line that failed its
   * checksum are kept but suspect (see {@link #suspect}): each one's own checksum says, when it is
   * read, whether its place was what the damage changed. Answers false when the line could not be
   * used at all (it failed its checksum and does not fit its conversation).
   */
  loadHintLine(
    line: HintLine,
    conversation: ConversationRecord | undefined,
    hint: number,
    version: number,
    place: HintLinePlace,
    messageFiles: ReadonlySet<number>,
  ): boolean {
    const stride = HINT_STRIDE[version]!;
    const ids = line.c === null ? line.ids : conversation?.messages;
    if (!ids || ids.length * stride !== line.at.length) {
      if (place.damaged) {
        // Its conversation goes without a line: see markLost.
        this.damage.line(path.basename(hintPath(this.file, hint)), place.offset);
        return false;
      }
      throw new Error(
        `The hint file ${hintPath(this.file, hint)}, line ${place.lineNumber}, does not match the snapshot (conversation "${line.c}"). Nothing was changed; see the README on recovery.`,
      );
    }
    if (place.damaged) this.damage.line(path.basename(hintPath(this.file, hint)), place.offset);
    if (version < 6) this.#checksums = false;
    const at = line.at;
    // A million messages load here at a start: no allocation per message but its keydir entry.
    for (let i = 0, base = 0; i < ids.length; i++, base += stride) {
      const id = ids[i]!;
      const file = at[base];
      const offset = at[base + 1];
      const length = at[base + 2];
      const order = at[base + 3];
      const crc = stride > 4 ? at[base + 4] : 0;
      if (file === 0 && length === 0) continue; // A message the store lacked when it wrote the hint.
      const sound =
        isCount(offset, Number.MAX_SAFE_INTEGER) && isCount(length, MAX_U32) && isCount(order, MAX_U32) && isCount(crc, MAX_U32);
      if (sound && file === 0 && !place.damaged) {
        // Lost at an earlier start, and kept so by the compactions since: still lost.
        this.#lose(id, { file: 0, offset, length, crc: 0 }, order);
      } else if (!sound || !Number.isInteger(file) || !messageFiles.has(-file!)) {
        this.#lose(id, lostLocation(hint, place.offset), isCount(order, MAX_U32) ? order : undefined);
      } else {
        this.index.set(id, { file: file!, offset, length, crc }, undefined, order);
        if (place.damaged) this.#suspect.set(id, { hint, offset: place.offset });
      }
    }
    return true;
  }

  /**
   * The messages `ids` (of a conversation whose hint line was damaged past reading) are lost: their
   * places went with line `offset` of hint file number `hint`.
   */
  markLost(ids: readonly string[], hint: number, offset: number): void {
    for (const id of ids) if (!this.index.has(id)) this.#lose(id, lostLocation(hint, offset));
  }

  /** Keeps `id` in the keydir at a lost place (`file` 0), known damaged from now on. */
  #lose(id: string, at: Location, order?: number): void {
    this.index.set(id, at, undefined, order);
    this.#damaged(id, at, 'lost');
  }

  /** Whether the keydir holds places without checksums (from a hint of version 5): the next compaction computes them. */
  get needsChecksums(): boolean {
    return !this.#checksums;
  }

  /** The keydir holds every checksum again (a migration from version 5 computed them). */
  checksumsKnown(): void {
    this.#checksums = true;
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
