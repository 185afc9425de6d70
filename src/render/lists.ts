import type { Fragment } from '../records.js';
import type { ReferenceList } from '../wire.js';

/** What a read answers with. */
export interface RenderOptions {
  /** Include transferable data (message text, asset content). */
  readonly transferables: boolean;
}

/** A list wrapper of ids: `{ iterable: [{ id }] }`. */
export const idList = (ids: readonly string[]): ReferenceList => ({ iterable: ids.map((id) => ({ id })) });

/** Position of each id, as the client's `indices`. */
export function indicesOf(ids: readonly string[]): Record<string, number> {
  const indices: Record<string, number> = {};
  ids.forEach((id, index) => {
    indices[id] = index;
  });
  return indices;
}

/** The fragment as answered: with its TransferableString only when transferables are wanted. */
export function renderFragment(fragment: Fragment | undefined, options: RenderOptions): Fragment | undefined {
  if (!fragment || options.transferables) return fragment;
  const { string: _transferable, ...rest } = fragment;
  return rest;
}
