import { grown } from '../typed-arrays.js';

/**
 * A list of numbers (documents, conversations) in a typed array kept from one search to the next:
 * an append costs no allocation. A search appends one for each document it finds; a JS array's
 * `push` cost five times as much as the rest of a posting's work.
 */
export class DocList {
  #items = new Int32Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** The numbers appended since the last {@link clear}: a view, valid until the next append. */
  get items(): Int32Array {
    return this.#items.subarray(0, this.#length);
  }

  at(i: number): number {
    return this.#items[i]!;
  }

  push(item: number): void {
    if (this.#length === this.#items.length) this.#items = grown(this.#items, this.#length * 2, Int32Array);
    this.#items[this.#length++] = item;
  }

  clear(): void {
    this.#length = 0;
  }
}
