import { deepFreeze } from '../../frozen.js';
import type { CollectionName } from '../../records.js';
import { listFieldsOf } from './list-fields.js';
import { fromText } from './texts.js';

/** A record as it is stored: its body, and the id lists kept as rows (by field). */
export interface StoredRecord {
  /** The record's JSON text, each id-list field in it replaced by `[]` (its ids are rows). */
  readonly body: string;
  /** The id lists stored as rows, by field. */
  readonly lists: ReadonlyMap<string, readonly string[]>;
}

/**
 * How a record is stored. The body keeps every field, in its order; an id-list field (see
 * LIST_FIELDS) that holds a list of strings is `[]` there, its ids being rows of `list_items`, so
 * that appending one id writes one row. A list field holding anything else (never written by the
 * service) stays in the body as it is, so every record round-trips; `[]` in the body always means
 * "the ids are rows", since an empty list is a list of strings. The body is JSON text, which spells
 * U+0000 and lone surrogates as escapes: `text` holds it exactly (jsonb refuses `\u0000`).
 */
export function encodeRecord(collection: CollectionName, record: object): StoredRecord {
  const fields = listFieldsOf(collection);
  const lists = new Map<string, readonly string[]>();
  let shallow: Record<string, unknown> | undefined;
  for (const field of fields) {
    const value = (record as Record<string, unknown>)[field];
    if (!isIdList(value)) continue;
    lists.set(field, value);
    shallow ??= { ...record };
    shallow[field] = EMPTY;
  }
  return { body: JSON.stringify(shallow ?? record), lists };
}

const EMPTY: readonly string[] = Object.freeze([]);

/**
 * The record a body and its rows stand for, deep-frozen. `lists` holds each list field's items as
 * stored (see texts.ts), in order; a field with no rows is an empty list.
 */
export function decodeRecord(
  collection: CollectionName,
  body: string,
  lists: Readonly<Record<string, readonly string[]>> | undefined,
): object {
  const record = JSON.parse(body) as Record<string, unknown>;
  for (const field of listFieldsOf(collection)) {
    const value = record[field];
    if (!Array.isArray(value) || value.length > 0) continue;
    const items = lists?.[field];
    record[field] = items && items.length > 0 ? items.map(fromText) : [];
  }
  return deepFreeze(record);
}

export function isIdList(value: unknown): value is readonly string[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}
