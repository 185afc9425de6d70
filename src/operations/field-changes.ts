import type { Timestamp } from '../records.js';

/**
 * `record` with an update body's fields applied, as every update route applies them: a field given
 * replaces the stored one, `null` clears it, one left out (undefined) stays; `updated` is bumped.
 * `stored` turns a field's value into what the record keeps (e.g. a referenced model kept as `{ id }`).
 */
export function withChanges<R extends object>(
  record: R,
  changes: Readonly<Record<string, unknown>>,
  updated: Timestamp,
  stored: (field: string, value: unknown) => unknown = (_field, value) => value,
): R {
  const next: Record<string, unknown> = { ...record, updated };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = stored(field, value);
  }
  return next as R;
}
