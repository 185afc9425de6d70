/**
 * Lists of ids that were made by appending to another list, and which one. Records are immutable,
 * so appending a message to a conversation makes a new list of 20,000 ids; the journal then writes
 * only the new id (see `record-patch.ts`), and with this it knows that without comparing the two
 * lists id by id.
 */
const appendedTo = new WeakMap<readonly string[], readonly string[]>();

/** `list` with `id` at the end: a new frozen list (frozen, it is stored without another copy). */
export function appendId(list: readonly string[], id: string): readonly string[] {
  // concat copies in one go; a spread walks the list.
  const next = Object.freeze(list.concat(id));
  appendedTo.set(next, list);
  return next;
}

/**
 * Whether `list` was made by {@link appendId} from `base`: the service adds a message (or any linked
 * id) to a record's id list that way, so a store that keeps such lists as rows (one per id) can
 * tell, at no cost, that a put only appended `list.at(-1)` to the list it read, and insert one row
 * rather than rewrite them all. False says nothing: compare the lists then. (The lists are known
 * by identity, in this package's memory: a store loaded with a second copy of the package sees
 * no append.)
 */
export function isAppendedTo(list: readonly unknown[], base: readonly unknown[]): boolean {
  return appendedTo.get(list as readonly string[]) === base;
}
