import { grown } from '../../typed-arrays.js';

/**
 * Where a stored message's bytes are: a file, the offset of its JSON there and its length, and the
 * CRC-32 of those bytes. `file` > 0 is a journal file (`<file>.journal-<n>`), `file` < 0 a message
 * file (`<file>.messages-<-n>`), written at compaction. `file` 0 is a message whose place was lost
 * to a damaged hint line: `offset` is that line's byte offset and `length` the hint file's number.
 */
export interface Location {
  readonly file: number;
  readonly offset: number;
  readonly length: number;
  readonly crc: number;
}

/** Where a message is whose place on disk was lost with line `offset` of hint file `hint` (see {@link Location}). */
export const lostLocation = (hint: number, offset: number): Location => ({ file: 0, offset, length: hint, crc: 0 });

const EMPTY = 0;
const REMOVED = -1;

/**
 * The keydir of the message files (Bitcask's term): message id → where its record is on disk,
 * with its version stamp and its place in insertion order. The record itself is not held. Ids go
 * through an open-addressing hash table over typed arrays rather than a Map: at a million messages
 * that is half the memory, and it is sized once when a hint file is loaded instead of growing (and
 * rehashing) a million times. A message costs its id (shared with its conversation's list), a
 * table cell and 40 bytes of typed arrays, whatever its length.
 */
export class MessageIndex {
  /** Slot → id (undefined: a free slot). */
  #ids: (string | undefined)[] = [];
  #free: number[] = [];
  #size = 0;
  /** Hash table cells: slot + 1, EMPTY or REMOVED. */
  #table = new Int32Array(2048);
  #used = 0;
  #file = new Int32Array(1024);
  #offset = new Float64Array(1024);
  #length = new Uint32Array(1024);
  #crc = new Uint32Array(1024);
  // Stamps and places are counters: 32 bits hold four billion writes of one process, and places
  // (kept across restarts) grow only by new messages.
  #version = new Uint32Array(1024);
  #order = new Uint32Array(1024);
  #versionClock = 0;
  #orderClock = 0;

  get size(): number {
    return this.#size;
  }

  /** Makes room for `count` messages at once (before loading a hint file). */
  reserve(count: number): void {
    if (count > this.#file.length) this.#growSlots(count);
    if ((this.#used + count) * 2 > this.#table.length) this.#rehash(count);
  }

  has(id: string): boolean {
    return this.#slotOf(id) !== undefined;
  }

  /** Where the message is, or undefined when it is not in the files. */
  location(id: string): Location | undefined {
    const slot = this.#slotOf(id);
    if (slot === undefined) return undefined;
    return this.locationAt(slot);
  }

  /**
   * The slot of message `id`: a small number that stays its own while it is in the files (a slot
   * is given to another message only after this one is deleted). Undefined when it is not in the files.
   */
  slotOf(id: string): number | undefined {
    return this.#slotOf(id);
  }

  /** Where the message of slot `slot` (see {@link slotOf}) is. */
  locationAt(slot: number): Location {
    return { file: this.#file[slot]!, offset: this.#offset[slot]!, length: this.#length[slot]!, crc: this.#crc[slot]! };
  }

  version(id: string): number | undefined {
    const slot = this.#slotOf(id);
    return slot === undefined ? undefined : this.#version[slot];
  }

  order(id: string): number | undefined {
    const slot = this.#slotOf(id);
    return slot === undefined ? undefined : this.#order[slot];
  }

  /** Records where the message is now; `version` defaults to a new stamp, `order` to its place (or a new one). */
  set(id: string, location: Location, version?: number, order?: number): void {
    let slot = this.#slotOf(id);
    const fresh = slot === undefined;
    if (slot === undefined) slot = this.#insert(id);
    this.#file[slot] = location.file;
    this.#offset[slot] = location.offset;
    this.#length[slot] = location.length;
    this.#crc[slot] = location.crc;
    this.#version[slot] = version ?? this.nextVersion();
    if (fresh || order !== undefined) this.#order[slot] = order ?? this.nextOrder();
    // Orders loaded from a hint file: places given out later must come after them.
    if (order !== undefined && order > this.#orderClock) this.#orderClock = order;
  }

  /** Moves the message to `to` only if it is still at `from` (nothing wrote it meanwhile). */
  move(id: string, from: Location, to: Location): boolean {
    const slot = this.#slotOf(id);
    if (slot === undefined || this.#file[slot] !== from.file || this.#offset[slot] !== from.offset) return false;
    this.#file[slot] = to.file;
    this.#offset[slot] = to.offset;
    this.#length[slot] = to.length;
    this.#crc[slot] = to.crc;
    return true;
  }

  delete(id: string): void {
    const cell = this.#cellOf(id);
    if (cell === undefined) return;
    const slot = this.#table[cell]! - 1;
    this.#table[cell] = REMOVED;
    this.#ids[slot] = undefined;
    this.#free.push(slot);
    this.#size--;
  }

  /** A new version stamp, later than every one given out before. */
  nextVersion(): number {
    return ++this.#versionClock;
  }

  /** A new place at the end of the insertion order. */
  nextOrder(): number {
    return ++this.#orderClock;
  }

  /** The last place given out (0 before the first): a place after it is a message added since. */
  get lastOrder(): number {
    return this.#orderClock;
  }

  /** Every message id, in no particular order. */
  *ids(): IterableIterator<string> {
    for (const id of this.#ids) if (id !== undefined) yield id;
  }

  /**
   * The messages of slots `from` to `from + count` (slots are the keydir's own numbering, stable
   * while a message stays; those loaded from a hint file are numbered in its order, which is the
   * order of the message files), and the slot to go on from: 0 once every slot was seen.
   */
  slice(from: number, count: number): { ids: string[]; locations: Location[]; next: number } {
    const ids: string[] = [];
    const locations: Location[] = [];
    const end = Math.min(this.#ids.length, from + count);
    for (let slot = from; slot < end; slot++) {
      const id = this.#ids[slot];
      if (id === undefined) continue;
      ids.push(id);
      locations.push(this.locationAt(slot));
    }
    return { ids, locations, next: end < this.#ids.length ? end : 0 };
  }

  #slotOf(id: string): number | undefined {
    const cell = this.#cellOf(id);
    return cell === undefined ? undefined : this.#table[cell]! - 1;
  }

  #cellOf(id: string): number | undefined {
    const mask = this.#table.length - 1;
    for (let cell = hash(id) & mask; ; cell = (cell + 1) & mask) {
      const value = this.#table[cell]!;
      if (value === EMPTY) return undefined;
      if (value !== REMOVED && this.#ids[value - 1] === id) return cell;
    }
  }

  #insert(id: string): number {
    if ((this.#used + 1) * 2 > this.#table.length) this.#rehash(this.#size + 1);
    const slot = this.#free.pop() ?? this.#ids.length;
    if (slot >= this.#file.length) this.#growSlots(slot + 1);
    this.#ids[slot] = id;
    const mask = this.#table.length - 1;
    let cell = hash(id) & mask;
    while (this.#table[cell]! > 0) cell = (cell + 1) & mask;
    if (this.#table[cell] === EMPTY) this.#used++;
    this.#table[cell] = slot + 1;
    this.#size++;
    return slot;
  }

  /** A table with room for `count` more ids than it holds, without the removed cells. */
  #rehash(count: number): void {
    let capacity = this.#table.length;
    while ((this.#size + count) * 2 > capacity) capacity *= 2;
    const table = new Int32Array(capacity);
    const mask = capacity - 1;
    this.#ids.forEach((id, slot) => {
      if (id === undefined) return;
      let cell = hash(id) & mask;
      while (table[cell] !== EMPTY) cell = (cell + 1) & mask;
      table[cell] = slot + 1;
    });
    this.#table = table;
    this.#used = this.#size;
  }

  #growSlots(needed: number): void {
    let size = this.#file.length;
    while (size < needed) size *= 2;
    this.#file = grown(this.#file, size, Int32Array);
    this.#offset = grown(this.#offset, size, Float64Array);
    this.#length = grown(this.#length, size, Uint32Array);
    this.#crc = grown(this.#crc, size, Uint32Array);
    this.#version = grown(this.#version, size, Uint32Array);
    this.#order = grown(this.#order, size, Uint32Array);
  }
}

/** FNV-1a over the id's UTF-16 code units. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
