import { isAppendedTo } from '../../id-lists.js';

/**
 * What changed between two versions of a record, for the journal: fields set or removed, and ids
 * appended to or removed from list fields. Appending a message to a conversation of 20,000 then
 * writes the new id, not the whole list again: a write costs what changed.
 */
export interface RecordPatch {
  /** Fields with a new value. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Fields removed. */
  readonly unset?: readonly string[];
  /** Ids added at the end of list fields. */
  readonly append?: Readonly<Record<string, readonly string[]>>;
  /** Ids taken out of list fields (every occurrence). */
  readonly remove?: Readonly<Record<string, readonly string[]>>;
}

type Fields = Readonly<Record<string, unknown>>;

/** The patch that turns `before` into `after`. Unchanged fields are the same value (or object). */
export function diffRecord(before: Fields, after: Fields): RecordPatch {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  const append: Record<string, string[]> = {};
  const remove: Record<string, string[]> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const old = before[key];
    const now = after[key];
    if (old === now) continue;
    if (now === undefined) unset.push(key);
    else if (appended(old, now)) append[key] = (now as string[]).slice((old as string[]).length);
    else if (isIdList(old) && isIdList(now) && now.length < old.length && removedFrom(old, now)) {
      const kept = new Set(now);
      remove[key] = [...new Set(old.filter((id) => !kept.has(id)))];
    } else set[key] = now;
  }
  return {
    ...(Object.keys(set).length > 0 ? { set } : {}),
    ...(unset.length > 0 ? { unset } : {}),
    ...(Object.keys(append).length > 0 ? { append } : {}),
    ...(Object.keys(remove).length > 0 ? { remove } : {}),
  };
}

/** `record` with `patch` applied: a new object, `record` untouched. */
export function applyPatch(record: Fields, patch: RecordPatch): Record<string, unknown> {
  const next: Record<string, unknown> = { ...record, ...patch.set };
  for (const key of patch.unset ?? []) delete next[key];
  for (const [key, ids] of Object.entries(patch.append ?? {})) next[key] = [...((next[key] as string[] | undefined) ?? []), ...ids];
  for (const [key, ids] of Object.entries(patch.remove ?? {})) {
    const gone = new Set(ids);
    next[key] = ((next[key] as string[] | undefined) ?? []).filter((id) => !gone.has(id));
  }
  return next;
}

/**
 * Whether `now` is the id list `old` with ids added at the end: known at once for a list made by
 * `appendId`, else found by comparing the two.
 */
function appended(old: unknown, now: unknown): boolean {
  if (!Array.isArray(old) || !Array.isArray(now) || now.length <= old.length) return false;
  if (isAppendedTo(now, old)) return typeof now[now.length - 1] === 'string';
  if (!startsWith(now, old)) return false;
  return isIdList(now);
}

function isIdList(value: unknown): value is readonly string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}

function startsWith(list: readonly string[], prefix: readonly string[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}

/** Whether `now` is `old` with every occurrence of some ids taken out, and nothing else changed. */
function removedFrom(old: readonly string[], now: readonly string[]): boolean {
  const kept = new Set(now);
  const left = old.filter((id) => kept.has(id));
  return left.length === now.length && left.every((id, i) => id === now[i]);
}
