import { isDeepStrictEqual } from 'node:util';
import { ServiceError } from '../errors.js';
import { KINDS } from '../kinds/index.js';
import type { Repository } from '../ports.js';
import { putLinked } from '../put-linked.js';
import type { CollectionName, Timestamp } from '../records.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ImportReport } from './format.js';
import { IdSets } from './id-sets.js';
import { fileStamp, jsonValues, mustBeUnchanged } from './json-values.js';
import { lineProblem } from './record-check.js';
import { ImportCounts } from './report.js';
import { namedIds, storedForm } from './stored-form.js';

type Fields = Record<string, unknown> & { readonly id: string };

/** The most bytes one record of a file may span (a message of a million characters is a few MB). */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

interface Line {
  readonly index: number;
  readonly collection: CollectionName;
  readonly record: Fields;
}

/**
 * Imports a file of this service's JSON export (see exportJson) into `repository`, ids kept,
 * nothing half-imported:
 * 1. the whole file is read and checked first (its format and version, every record as the stores
 *    check theirs, sizes, no id twice, every message's conversation in the file or the store), and
 *    which of its records the store holds already is noted;
 * 2. when it holds some, the file is read again and each is compared with the stored one: a record
 *    stored identically is left alone (so a second import writes nothing), one stored differently
 *    is a CONFLICT naming it, and nothing is written;
 * 3. the file is read a last time and its other records written, `batch` records a transaction,
 *    through putLinked: a link to a record the store holds is made on both sides, a link to a
 *    record neither in the file nor stored is dropped.
 *
 * A stop between two batches of step 3 (a crash, a full disk) leaves whole records, some links
 * one-sided (to records of later batches); importing the same file again finishes the import.
 * The file must not change meanwhile: it is checked to have kept its size and time.
 */
export async function importJson(repository: Repository, file: string, batch: number, now: () => Timestamp): Promise<ImportReport> {
  const before = await fileStamp(file);
  const inFile = new IdSets();
  const stored = new IdSets();
  const messageConversations = new Set<string>();
  let checking: Line[] = [];
  const noteStored = async () => {
    const lines = checking;
    checking = [];
    await repository.read(async (view) => {
      for (const [collection, group] of byCollection(lines)) {
        const versions = await view.versions(
          collection,
          group.map((line) => line.record.id),
        );
        group.forEach((line, i) => versions[i] !== undefined && stored.add(collection, line.record.id));
      }
    });
  };
  for await (const line of lines(file)) {
    const { collection, record, index } = line;
    if (inFile.has(collection, record.id)) throw lineError(index, collection, record.id, 'its id is in the file twice');
    inFile.add(collection, record.id);
    if (collection === 'messages') messageConversations.add(record.conversation as string);
    checking.push(line);
    if (checking.length >= batch) await noteStored();
  }
  await noteStored();

  // A message whose conversation is neither in the file nor stored could not be stored whole.
  const outside = [...messageConversations].filter((id) => !inFile.has('conversations', id));
  const found = await repository.read((view) => view.versions('conversations', outside));
  const missing = outside.find((_, i) => found[i] === undefined);
  if (missing !== undefined) {
    throw new ServiceError(
      'INVALID_INPUT',
      `The file holds messages of the conversation "${missing}", which is neither in the file nor stored: nothing was imported.`,
      { resource: 'conversation', id: missing },
    );
  }

  const counts = new ImportCounts();
  if (stored.size > 0) await checkStored(repository, file, batch, inFile, stored);
  await mustBeUnchanged(file, before);

  // Written from here: what is pending is in the file, not stored, and not written yet.
  const pending = inFile;
  let arriving: Line[] = [];
  const write = async () => {
    const group = arriving;
    arriving = [];
    if (group.length === 0) return;
    const updated = now();
    const same = await repository.transact(async (tx) => {
      const records = new Map<CollectionName, Fields[]>();
      const same = new Set<Line>();
      for (const [collection, lines] of byCollection(group)) {
        const current = await tx.getMany(
          collection,
          lines.map((line) => line.record.id),
        );
        lines.forEach((line, i) => {
          const now = current[i];
          if (now === undefined) {
            let list = records.get(collection);
            if (!list) records.set(collection, (list = []));
            list.push(line.record);
          } else if (isDeepStrictEqual(now, line.record)) same.add(line);
          // Written meanwhile by someone else: the batches before stay (see above).
          else throw conflict(line);
        });
      }
      await putLinked(tx, records, updated, { pending: (collection, id) => pending.has(collection, id) });
      return same;
    });
    for (const line of group) {
      pending.delete(line.collection, line.record.id);
      counts.add(line.collection, same.has(line) ? 'unchanged' : 'written');
    }
  };
  for await (const line of lines(file)) {
    if (stored.has(line.collection, line.record.id)) {
      counts.add(line.collection, 'unchanged');
      continue;
    }
    arriving.push(line);
    if (arriving.length >= batch) await write();
  }
  await write();
  return counts.report('json');
}

/** Step 2 of {@link importJson}: every record of the file the store holds is held as the file has it. */
async function checkStored(repository: Repository, file: string, batch: number, inFile: IdSets, stored: IdSets): Promise<void> {
  let group: Line[] = [];
  const compare = async () => {
    const lines = group;
    group = [];
    await repository.read(async (view) => {
      // Which of the records they name outside the file the store holds: links to others are dropped.
      const outside = new Map<CollectionName, Set<string>>();
      for (const line of lines) {
        for (const { collection, id } of namedIds(line.collection, line.record)) {
          if (inFile.has(collection, id)) continue;
          let set = outside.get(collection);
          if (!set) outside.set(collection, (set = new Set()));
          set.add(id);
        }
      }
      const exists = new IdSets();
      for (const [collection, set] of outside) {
        const ids = [...set];
        const versions = await view.versions(collection, ids);
        ids.forEach((id, i) => versions[i] !== undefined && exists.add(collection, id));
      }
      const known = (collection: CollectionName, id: string) => inFile.has(collection, id) || exists.has(collection, id);
      for (const [collection, same] of byCollection(lines)) {
        const current = await view.getMany(
          collection,
          same.map((line) => line.record.id),
        );
        same.forEach((line, i) => {
          if (!isDeepStrictEqual(current[i], storedForm(collection, line.record, known))) throw conflict(line);
        });
      }
    });
  };
  for await (const line of lines(file)) {
    if (!stored.has(line.collection, line.record.id)) continue;
    group.push(line);
    if (group.length >= batch) await compare();
  }
  await compare();
}

/** The records of a file of this service's export, each checked (see {@link lineProblem}), with its index. */
async function* lines(file: string): AsyncGenerator<Line> {
  let format: unknown;
  let version: unknown;
  let last: Line | undefined;
  const where = () =>
    last ? `after record ${last.index}, the ${KINDS[last.collection].resource} "${last.record.id}"` : 'before its first record';
  for await (const found of jsonValues(file, {
    paths: ['$.format', '$.version', '$.records.*'],
    maxValueBytes: MAX_RECORD_BYTES,
    what: 'record',
    where,
  })) {
    if (found.depth === 0) {
      if (found.key === 'format') format = found.value;
      else if (found.key === 'version') version = found.value;
      continue;
    }
    if (format !== EXPORT_FORMAT) {
      throw new ServiceError('INVALID_INPUT', `The file is not an export of this service: its "format" is not "${EXPORT_FORMAT}".`);
    }
    if (version !== EXPORT_VERSION) {
      throw new ServiceError(
        'INVALID_INPUT',
        `The file is an export of version ${JSON.stringify(version)}; this release reads version ${EXPORT_VERSION}${typeof version === 'number' && version > EXPORT_VERSION ? ' (it was written by a newer release)' : ''}.`,
      );
    }
    const index = found.key as number;
    const problem = lineProblem(found.value);
    if (problem) throw lineError(index, problem.collection, problem.id, problem.problem);
    const { collection, record } = found.value as { collection: CollectionName; record: Fields };
    last = { index, collection, record };
    yield last;
  }
  if (format !== EXPORT_FORMAT) {
    throw new ServiceError('INVALID_INPUT', `The file is not an export of this service: its "format" is not "${EXPORT_FORMAT}".`);
  }
}

const byCollection = (lines: readonly Line[]): Map<CollectionName, Line[]> => {
  const groups = new Map<CollectionName, Line[]>();
  for (const line of lines) {
    let group = groups.get(line.collection);
    if (!group) groups.set(line.collection, (group = []));
    group.push(line);
  }
  return groups;
};

function lineError(index: number, collection: CollectionName | undefined, id: string | undefined, problem: string): ServiceError {
  const what = collection ? `the ${KINDS[collection].resource}${id === undefined ? '' : ` "${id}"`}` : 'it';
  return new ServiceError('INVALID_INPUT', `Record ${index} of the file (${what}) cannot be imported: ${problem}. Nothing was imported.`, {
    ...(collection ? { resource: KINDS[collection].resource } : {}),
    ...(id !== undefined ? { id } : {}),
    issues: [{ path: ['records', index], message: problem }],
  });
}

const conflict = (line: Line) => {
  const resource = KINDS[line.collection].resource;
  return new ServiceError(
    'CONFLICT',
    `The ${resource} "${line.record.id}" (record ${line.index} of the file) is stored already, and differently: nothing was imported. Delete it, or import into another store.`,
    {
      resource,
      id: line.record.id,
      existingId: line.record.id,
      issues: [{ path: ['records', line.index], message: 'stored differently' }],
    },
  );
};
