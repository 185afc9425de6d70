import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { recordProblem } from '../record-checks.js';
import { JSON_FILE_FORMAT_VERSION } from './format-version.js';
import type { SnapshotData } from './snapshot.js';

export { JSON_FILE_FORMAT_VERSION };

/**
 * One step per past version, from that version to the next: a change to the whole snapshot, and a
 * change to each record. Record steps apply to the snapshot's records and to journal entries
 * written by that version (an entry names its version; entries without one are version 2).
 */
const STEPS: Record<
  number,
  {
    snapshot?: (data: Record<string, unknown>) => Record<string, unknown>;
    record?: (collection: CollectionName, record: Record<string, unknown>) => Record<string, unknown>;
  }
> = {
  // 1 → 2: the snapshot records which journal entries it already holds (version 1 had no journal),
  // and every collection is present, empty or not.
  1: { snapshot: (data) => ({ ...Object.fromEntries(COLLECTION_NAMES.map((name) => [name, []])), ...data, journalSeq: 0 }) },
  // 2 → 3: a summary's coverage lives on the annotation alone; messages no longer list their annotations.
  2: {
    record: (collection, record) => {
      if (collection !== 'messages' || !('annotations' in record)) return record;
      const { annotations: _gone, ...message } = record;
      return message;
    },
  },
  // 3 → 4: the snapshot names the journal file that continues it (added at its next write), and a
  // rotated journal file ends with a line naming the next one; records are unchanged.
  3: {},
  // 4 → 5: messages move out of the snapshot into message files, found through a hint file the
  // snapshot names. The store does the move (it writes those files) at its first compaction;
  // until then the migrated snapshot holds them as version 4 did. Records are unchanged.
  4: {},
  // 5 → 6: every journal line, hint line and message record has a checksum (CRC-32): a journal or
  // hint line ends with its own, and a message's is in the hint beside its place. The store
  // computes the messages' at its first compaction, which reads every one of them, and writes a
  // hint of version 6; journal lines written before have none, and are read as they are.
  // Records are unchanged.
  5: {},
  // 6 → 7: four new collections (tags, persons, workstream events, workstream pattern-engine
  // sources), empty in a store written before. A new version, not a missing collection read as
  // empty: a journal naming them would be damage to a release that does not know them, which
  // refuses the file by its version instead. Records are unchanged (new link fields are absent
  // until a first link).
  6: { snapshot: (data) => ({ ...Object.fromEntries(ADDED_IN_7.map((name) => [name, []])), ...data }) },
  // 7 → 8: the trash (deleted conversations kept for a while), empty in a store written before;
  // a new version for the reason of 6 → 7. Records are unchanged.
  7: { snapshot: (data) => ({ trash: [], ...data }) },
};

/** The collections version 7 added: a fact of that version, not to be extended with later ones. */
const ADDED_IN_7: readonly CollectionName[] = ['tags', 'persons', 'workstreamEvents', 'sources'];

/** The snapshot in the current layout, or an error if it comes from a newer release or is damaged. */
export function migrate(data: SnapshotData, file: string): SnapshotData {
  let current = data as unknown as Record<string, unknown>;
  const from = current.version as number;
  while ((current.version as number) < JSON_FILE_FORMAT_VERSION) {
    const version = current.version as number;
    const step = STEPS[version];
    if (!step) throw new Error(`The snapshot ${file} has version ${String(version)}, which this release cannot migrate.`);
    current = { ...(step.snapshot?.(current) ?? current), version: version + 1 };
  }
  if (current.version !== JSON_FILE_FORMAT_VERSION) {
    throw new Error(`The snapshot ${file} has version ${String(current.version)}; this release reads up to ${JSON_FILE_FORMAT_VERSION}.`);
  }
  for (const name of COLLECTION_NAMES) {
    // A collection missing altogether is not an empty one: the file was cut or edited.
    if (!Array.isArray(current[name])) {
      throw new Error(`The snapshot ${file} has no "${name}" collection. Nothing was changed; repair it, or see the README on recovery.`);
    }
    if (from < JSON_FILE_FORMAT_VERSION)
      current[name] = (current[name] as Record<string, unknown>[]).map((record) => migrateRecord(name, record, from));
    (current[name] as unknown[]).forEach((record, index) => {
      const problem = recordProblem(name, record);
      if (problem)
        throw new Error(
          `The snapshot ${file}: ${problem} (record ${index + 1} of "${name}"). Nothing was changed; repair or remove that record, or see the README on recovery.`,
        );
    });
  }
  return current as unknown as SnapshotData;
}

/** A record written by release `version`, in the current layout. */
export function migrateRecord<T>(collection: CollectionName, record: T, version: number): T {
  let current = record as unknown as Record<string, unknown>;
  for (let v = version; v < JSON_FILE_FORMAT_VERSION; v++) current = STEPS[v]?.record?.(collection, current) ?? current;
  return current as unknown as T;
}
