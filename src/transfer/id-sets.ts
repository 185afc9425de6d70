import type { CollectionName } from '../records.js';

/** Sets of ids by collection: which records a file holds, which the store holds. */
export class IdSets {
  readonly #sets = new Map<CollectionName, Set<string>>();

  has(collection: CollectionName, id: string): boolean {
    return this.#sets.get(collection)?.has(id) === true;
  }

  add(collection: CollectionName, id: string): void {
    let set = this.#sets.get(collection);
    if (!set) this.#sets.set(collection, (set = new Set()));
    set.add(id);
  }

  delete(collection: CollectionName, id: string): void {
    this.#sets.get(collection)?.delete(id);
  }

  get size(): number {
    let size = 0;
    for (const set of this.#sets.values()) size += set.size;
    return size;
  }
}
