import { isAppendedTo } from '../../id-lists.js';

/**
 * What a transaction's put does to one id list's rows, found by comparing the list with the one
 * the transaction read (under its row lock, so it is what is stored):
 * - `append`: ids added at the end; one row each, after the last (a link or a new message costs
 *   the same at any length). Known at once for a list made by `appendId`.
 * - `remove`: ids taken out (every occurrence), nothing else changed; their rows are deleted.
 * - `rewrite`: anything else, or a list whose stored form is unknown: its rows are replaced.
 */
export type ListWrite =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly items: readonly string[] }
  | { readonly kind: 'remove'; readonly items: readonly string[] }
  | { readonly kind: 'rewrite'; readonly items: readonly string[] };

const NONE: ListWrite = { kind: 'none' };

/** The write that turns the stored list `before` (undefined: not known) into `after`. */
export function listWrite(before: readonly string[] | undefined, after: readonly string[]): ListWrite {
  if (before === undefined) return { kind: 'rewrite', items: after };
  if (after === before) return NONE;
  if (after.length > before.length && (isAppendedTo(after, before) || startsWith(after, before))) {
    return { kind: 'append', items: after.slice(before.length) };
  }
  if (after.length < before.length) {
    const removed = removedFrom(before, after);
    if (removed) return { kind: 'remove', items: removed };
  }
  if (after.length === before.length && startsWith(after, before)) return NONE;
  return { kind: 'rewrite', items: after };
}

function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}

/** The ids `after` lacks when it is `before` with every occurrence of them taken out; else undefined. */
function removedFrom(before: readonly string[], after: readonly string[]): string[] | undefined {
  const kept = new Set(after);
  const removed = new Set<string>();
  let j = 0;
  for (const id of before) {
    if (!kept.has(id)) {
      removed.add(id);
      continue;
    }
    if (after[j] !== id) return undefined;
    j++;
  }
  return j === after.length ? [...removed] : undefined;
}
