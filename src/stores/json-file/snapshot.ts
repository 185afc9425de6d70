import { readFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { replaceFileAtomically } from './durable-fs.js';

/** The snapshot file: every collection as an array of records, one record per line. */
export type SnapshotData = {
  version: number;
  /** The last journal entry folded into this snapshot. */
  journalSeq: number;
} & { [C in CollectionName]?: readonly object[] };

/** Records written between two yields to the event loop while a snapshot is written. */
const RECORDS_PER_SLICE = 2_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A lowdb adapter for the snapshot. Reading names the file, line and column of a parse error.
 * Writing streams the records in slices (the service keeps answering meanwhile), flushes, keeps the
 * previous snapshot as `backup`, and renames the new one into place atomically.
 */
export class SnapshotFile implements Adapter<SnapshotData> {
  constructor(
    readonly file: string,
    /** Where the previous snapshot goes when a new one is written; none when only reading. */
    readonly backup?: string,
  ) {}

  async read(): Promise<SnapshotData | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return parseSnapshot(text, this.file);
  }

  async write(data: SnapshotData): Promise<void> {
    await replaceFileAtomically(
      this.file,
      async (append) => {
        const { version, journalSeq } = data;
        await append(`{\n"version": ${version},\n"journalSeq": ${journalSeq}`);
        for (const name of COLLECTION_NAMES) {
          const records = data[name] ?? [];
          await append(`,\n"${name}": [`);
          for (let i = 0; i < records.length; i++) {
            await append(`${i === 0 ? '\n' : ',\n'}${JSON.stringify(records[i])}`);
            if (i % RECORDS_PER_SLICE === RECORDS_PER_SLICE - 1) await nextTurn();
          }
          await append(records.length > 0 ? '\n]' : ']');
        }
        await append('\n}\n');
      },
      this.backup,
    );
  }
}

/** Parses a snapshot, or throws an error naming the file and where it stops making sense. */
function parseSnapshot(text: string, file: string): SnapshotData {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? NaN);
    const where = Number.isNaN(position) ? '' : ` at ${lineAndColumn(text, position)} (byte ${Buffer.byteLength(text.slice(0, position))})`;
    throw new Error(`The snapshot ${file} cannot be parsed${where}: ${message}. Nothing was changed; see the README on recovery.`);
  }
  if (typeof data !== 'object' || data === null || typeof (data as SnapshotData).version !== 'number') {
    throw new Error(`The snapshot ${file} is not a data file of this service (it has no "version").`);
  }
  return data as SnapshotData;
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}
