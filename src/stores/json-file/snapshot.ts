import type { FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Adapter } from 'lowdb';
import { replaceFileAtomically } from '../../files/durable-fs.js';
import { openOwnFileToRead, type Warn } from '../../files/own-files.js';
import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { Slices } from '../../slices.js';
import { recordProblem } from '../record-checks.js';
import { JSON_FILE_FORMAT_VERSION } from './migrations.js';

/** The snapshot file: every collection as an array of records, one record per line. */
export type SnapshotData = {
  version: number;
  /** The last journal entry folded into this snapshot. */
  journalSeq: number;
  /**
   * The number of the journal file the writes after `journalSeq` go on in (absent before version
   * 4): opening refuses a store whose file this names is missing, rather than lose its writes.
   */
  journal?: number;
  /**
   * The number of the hint file that says where each message is (from version 5, whose messages
   * live in message files and the journal, not in the snapshot).
   */
  hint?: number;
  /**
   * The store's id: random, written when the store is created (or, for a store made before it
   * existed, at its next snapshot). Files derived from the store, such as its search index, name it,
   * so one copied in from another store is not taken for its own.
   */
  store?: string;
} & { [C in CollectionName]?: readonly object[] };

/**
 * A lowdb adapter for the snapshot. Reading names the file, line and column of a parse error.
 * Writing streams the records a slice at a time (the service keeps answering meanwhile), flushes,
 * keeps the previous snapshot as `backup`, and renames the new one into place atomically.
 */
export class SnapshotFile implements Adapter<SnapshotData> {
  constructor(
    readonly file: string,
    /** Where the previous snapshot goes when a new one is written; none when only reading. */
    readonly backup?: string,
    /** Where a write says it removed an entry found in the place of its temporary file. */
    readonly warn: Warn = (message) => console.warn(message),
  ) {}

  /**
   * Reads the snapshot a line (a record) at a time, so a store larger than the longest string V8
   * allows (~512 MiB) opens; each record of the current version is checked as it is read, and a
   * bad one stops the start naming the file, line and record. A file laid out otherwise (edited by
   * hand) is parsed whole, when it is small enough.
   */
  async read(): Promise<SnapshotData | null> {
    // Once: read by lines, then (laid out otherwise) whole, from the same file.
    const open = () =>
      openOwnFileToRead(this.file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
    const lines = await open();
    if (!lines) return null;
    const size = (await lines.stat()).size;
    const byLines = await readSnapshotLines(lines, this.file);
    if (byLines) return byLines;
    if (size > WHOLE_PARSE_MAX_BYTES) {
      throw new Error(
        `The snapshot ${this.file} is not laid out one record per line, and is too large (${size} bytes) to read whole. Nothing was changed; see the README on recovery.`,
      );
    }
    const whole = await open();
    if (!whole) return null;
    try {
      return parseSnapshot(await whole.readFile('utf8'), this.file);
    } finally {
      await whole.close();
    }
  }

  async write(data: SnapshotData): Promise<void> {
    await replaceFileAtomically(
      this.file,
      async (append) => {
        const slices = new Slices();
        const { version, journalSeq, journal, hint, store } = data;
        await append(
          `{\n"version": ${version},\n"journalSeq": ${journalSeq}${journal === undefined ? '' : `,\n"journal": ${journal}`}${hint === undefined ? '' : `,\n"hint": ${hint}`}${store === undefined ? '' : `,\n"store": ${JSON.stringify(store)}`}`,
        );
        for (const name of COLLECTION_NAMES) {
          const records = data[name] ?? [];
          await append(`,\n"${name}": [`);
          for (let i = 0; i < records.length; i++) {
            await append(`${i === 0 ? '\n' : ',\n'}${JSON.stringify(records[i])}`);
            if (slices.due) await slices.next();
          }
          await append(records.length > 0 ? '\n]' : ']');
        }
        await append('\n}\n');
      },
      this.warn,
      this.backup,
    );
  }
}

/** The hint file the snapshot on disk names (from its first lines), or undefined when it names none or cannot be read. */
export async function readSnapshotHint(file: string): Promise<number | undefined> {
  const handle = await openOwnFileToRead(file).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const hint = /^"hint": (\d+),?$/m.exec(head.toString('utf8', 0, bytesRead))?.[1];
    return hint === undefined ? undefined : Number(hint);
  } finally {
    await handle.close();
  }
}

/** Files larger than this are read only a line at a time (a string this long is near V8's limit). */
const WHOLE_PARSE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The snapshot as this adapter writes it: `{`, the `"version"`, `"journalSeq"`, `"journal"`, `"hint"` and `"store"` lines, then per
 * collection a `"name": [` line, one record per line and a `]` line, then `}`. Undefined when the
 * file is laid out otherwise (the caller parses it whole).
 */
async function readSnapshotLines(handle: FileHandle, file: string): Promise<SnapshotData | undefined> {
  const data: Record<string, unknown> = {};
  let collection: CollectionName | undefined;
  let records: object[] = [];
  let lineNumber = 0;
  let state: 'start' | 'header' | 'records' | 'end' = 'start';
  // The stream closes the handle when it ends or is destroyed.
  const input = handle.createReadStream({ encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const raw of lines) {
      lineNumber++;
      const line = raw.trim();
      if (line === '') continue;
      if (state === 'start') {
        if (line !== '{') return undefined;
        state = 'header';
      } else if (state === 'records') {
        if (line === ']' || line === '],') {
          data[collection!] = records;
          state = 'header';
          continue;
        }
        let record: unknown;
        try {
          record = JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line);
        } catch (error) {
          throw new Error(
            `The snapshot ${file} is corrupt at line ${lineNumber}: the record does not parse (${(error as Error).message}). Nothing was changed; see the README on recovery.`,
          );
        }
        const problem = data.version === JSON_FILE_FORMAT_VERSION ? recordProblem(collection!, record) : undefined;
        if (problem)
          throw new Error(
            `The snapshot ${file}, line ${lineNumber}: ${problem}. Nothing was changed; repair or remove that record, or see the README on recovery.`,
          );
        records.push(record as object);
      } else if (line === '}') {
        state = 'end';
      } else {
        const start = /^"(\w+)": \[(\])?,?$/.exec(line);
        if (start && (COLLECTION_NAMES as readonly string[]).includes(start[1]!)) {
          collection = start[1] as CollectionName;
          if (start[2]) data[collection] = [];
          else {
            records = [];
            state = 'records';
          }
          continue;
        }
        const field = /^"(version|journalSeq|journal|hint)": (\d+),?$/.exec(line);
        if (field) {
          data[field[1]!] = Number(field[2]);
          continue;
        }
        const id = /^"store": "([\w-]{1,64})",?$/.exec(line);
        if (!id) return undefined;
        data.store = id[1];
      }
    }
  } finally {
    lines.close();
    input.destroy();
  }
  return state === 'end' && typeof data.version === 'number' ? (data as SnapshotData) : undefined;
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
