import type { Fragment } from '../records.js';
import type { ReferenceList } from '../wire.js';

/** What a read answers with. */
export interface RenderOptions {
  /** Include transferable data (message text, asset content). */
  readonly transferables: boolean;
}

/** A list wrapper of ids: `{ iterable: [{ id }] }`. */
export function idList(ids: readonly string[]): ReferenceList {
  const iterable: { id: string }[] = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) iterable[i] = { id: ids[i]! };
  return { iterable };
}

/** The fragment as answered: with its TransferableString only when transferables are wanted. */
export function renderFragment(fragment: Fragment | undefined, options: RenderOptions): Fragment | undefined {
  if (!fragment || options.transferables) return fragment;
  return fragment.metadata ? { metadata: fragment.metadata } : {};
}
