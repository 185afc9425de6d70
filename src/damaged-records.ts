import { type DamagedRecord, isServiceError } from './errors.js';
import type { ReadView } from './ports.js';
import type { CollectionName, Collections } from './records.js';

/**
 * A record an answer left out because it is damaged on disk, as the answer's `skipped` names it:
 * the error a read of it answers (see `skippedRecordAnswerSchema`).
 */
export interface SkippedRecord extends DamagedRecord {
  readonly code: 'DATA_DAMAGED';
}

/**
 * `view.getMany`, answering the rest when some of the records are damaged on disk: those are
 * undefined in the answer, as missing ones are, and named in `skipped` (each once). A store names
 * every damaged record of a read in its DATA_DAMAGED error, so the rest is read again without them
 * once (the store has just read, and cached, the sound ones). Any other error is thrown.
 */
export async function readSkippingDamaged<C extends CollectionName>(
  view: ReadView,
  collection: C,
  ids: readonly string[],
  skipped: SkippedRecord[],
): Promise<(Collections[C] | undefined)[]> {
  // Positions in `ids` still to read; all of them at first (the usual read: nothing damaged, one call).
  let positions: number[] | undefined;
  for (;;) {
    let records: (Collections[C] | undefined)[];
    try {
      records = await view.getMany(collection, positions ? positions.map((i) => ids[i]!) : ids);
    } catch (error) {
      const damaged = damagedRecordsOf(error);
      const reading = positions ?? ids.map((_, i) => i);
      const bad = new Set(damaged?.map((record) => record.id));
      const rest = reading.filter((i) => !bad.has(ids[i]!));
      // An error that names none of these records is not one to read around.
      if (!damaged || rest.length === reading.length) throw error;
      const named = new Set(skipped.map((record) => `${record.resource}\u0000${record.id}`));
      for (const record of damaged) {
        if (named.has(`${record.resource}\u0000${record.id}`)) continue;
        named.add(`${record.resource}\u0000${record.id}`);
        skipped.push(skippedRecord(record));
      }
      positions = rest;
      continue;
    }
    const read = positions;
    if (!read) return records;
    const found: (Collections[C] | undefined)[] = new Array(ids.length);
    records.forEach((record, j) => {
      found[read[j]!] = record;
    });
    return found;
  }
}

/** The damaged records a DATA_DAMAGED error names: all of them (`details.damaged`), or the one its details name. */
function damagedRecordsOf(error: unknown): readonly DamagedRecord[] | undefined {
  if (!isServiceError(error) || error.code !== 'DATA_DAMAGED') return undefined;
  const { damaged, resource, id, file, offset } = error.details;
  if (damaged && damaged.length > 0) return damaged;
  if (id === undefined) return undefined;
  return [{ resource: resource ?? 'record', id, file: file ?? '', offset: offset ?? 0, message: error.message }];
}

/** The `skipped` entry of a damaged record, its fields in the order an error answer has them. */
const skippedRecord = (record: DamagedRecord): SkippedRecord => ({
  code: 'DATA_DAMAGED',
  message: record.message,
  resource: record.resource,
  id: record.id,
  file: record.file,
  offset: record.offset,
});
