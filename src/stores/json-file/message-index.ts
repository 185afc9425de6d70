/**
 * Where a stored message's bytes are: a file, the offset of its JSON there and its length.
 * `file` > 0 is a journal file (`<file>.journal-<n>`), `file` < 0 a message file
 * (`<file>.messages-<-n>`), written at compaction.
 */
export interface Location {
  readonly file: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * The keydir of the message files (Bitcask's term): message id → where its record is on disk,
 * with its version stamp and its place in insertion order. The record itself is not held: a
 * message costs a map entry and 32 bytes of typed arrays, whatever its length.
 */
export class MessageIndex {
  readonly #slots = new Map<string, number>();
  #free: number[] = [];
  #file = new Int32Array(1024);
  #offset = new Float64Array(1024);
  #length = new Uint32Array(1024);
  #version = new Float64Array(1024);
  #order = new Float64Array(1024);
  #clock = 0;

  get size(): number {
    return this.#slots.size;
  }

  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** Where the message is, or undefined when it is not in the files. */
  location(id: string): Location | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    return { file: this.#file[slot]!, offset: this.#offset[slot]!, length: this.#length[slot]! };
  }

  version(id: string): number | undefined {
    const slot = this.#slots.get(id);
    return slot === undefined ? undefined : this.#version[slot];
  }

  order(id: string): number | undefined {
    const slot = this.#slots.get(id);
    return slot === undefined ? undefined : this.#order[slot];
  }

  /** Records where the message is now; `version` defaults to a new stamp, `order` to its place (or a new one). */
  set(id: string, location: Location, version?: number, order?: number): void {
    let slot = this.#slots.get(id);
    const fresh = slot === undefined;
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#slots.size;
      if (slot >= this.#file.length) this.#grow();
      this.#slots.set(id, slot);
    }
    this.#file[slot] = location.file;
    this.#offset[slot] = location.offset;
    this.#length[slot] = location.length;
    this.#version[slot] = version ?? this.nextStamp();
    if (fresh || order !== undefined) this.#order[slot] = order ?? this.nextStamp();
    // Orders loaded from a hint file: stamps given out later must come after them.
    if (order !== undefined && order > this.#clock) this.#clock = order;
  }

  /** Moves the message to `location` only if it is still at `from` (nothing wrote it meanwhile). */
  move(id: string, from: Location, to: Location): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined || this.#file[slot] !== from.file || this.#offset[slot] !== from.offset) return false;
    this.#file[slot] = to.file;
    this.#offset[slot] = to.offset;
    this.#length[slot] = to.length;
    return true;
  }

  delete(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    this.#free.push(slot);
  }

  /** A new stamp, later than every one given out before (versions and orders share the clock). */
  nextStamp(): number {
    return ++this.#clock;
  }

  /** Every message id, in insertion order. */
  ids(): IterableIterator<string> {
    return this.#slots.keys();
  }

  #grow(): void {
    const size = this.#file.length * 2;
    const grown = <T extends Int32Array | Float64Array | Uint32Array>(from: T, make: new (n: number) => T) => {
      const to = new make(size);
      to.set(from);
      return to;
    };
    this.#file = grown(this.#file, Int32Array);
    this.#offset = grown(this.#offset, Float64Array);
    this.#length = grown(this.#length, Uint32Array);
    this.#version = grown(this.#version, Float64Array);
    this.#order = grown(this.#order, Float64Array);
  }
}
