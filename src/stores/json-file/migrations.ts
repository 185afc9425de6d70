import type { SnapshotData } from './snapshot.js';

/** The version of the data file's layout that this release writes. */
export const JSON_FILE_FORMAT_VERSION = 3;

/**
 * One step per past version, from that version to the next. Opening an older file runs the steps in
 * order; the migrated layout is written with the next snapshot.
 */
const MIGRATIONS: Record<number, (data: Record<string, unknown>) => Record<string, unknown>> = {
  // 1 → 2: the snapshot records which journal entries it already holds (version 1 had no journal).
  1: (data) => ({ ...data, version: 2, journalSeq: 0 }),
  // 2 → 3: a summary's coverage lives on the annotation alone; messages no longer list their annotations.
  2: (data) => ({
    ...data,
    version: 3,
    messages: ((data.messages as Record<string, unknown>[] | undefined) ?? []).map(({ annotations: _gone, ...message }) => message),
  }),
};

/** The snapshot in the current layout, or an error if it comes from a newer release. */
export function migrate(data: SnapshotData, file: string): SnapshotData {
  let current = data as unknown as Record<string, unknown>;
  while ((current.version as number) < JSON_FILE_FORMAT_VERSION) {
    const step = MIGRATIONS[current.version as number];
    if (!step) throw new Error(`The snapshot ${file} has version ${String(current.version)}, which this release cannot migrate.`);
    current = step(current);
  }
  if (current.version !== JSON_FILE_FORMAT_VERSION) {
    throw new Error(`The snapshot ${file} has version ${String(current.version)}; this release reads up to ${JSON_FILE_FORMAT_VERSION}.`);
  }
  return current as unknown as SnapshotData;
}
