import { closeSync, readSync } from 'node:fs';
import path from 'node:path';
import { Slices } from '../../slices.js';
import { syncFolder, writeNewFile } from './durable-fs.js';
import { writeAll } from './journal.js';
import type { Location } from './message-index.js';
import { openOwnFileToReadSync, readOwnFile, type Warn } from './own-files.js';

/** Paths of the store's files, all beside the snapshot `file`. */
export const journalPath = (file: string, index: number) => `${file}.journal-${String(index).padStart(6, '0')}`;
export const messageFilePath = (file: string, index: number) => `${file}.messages-${String(index).padStart(6, '0')}`;
export const hintPath = (file: string, index: number) => `${file}.hint-${String(index).padStart(6, '0')}`;

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Reads stretches closer than this with one read, not two. */
const COALESCE_GAP = 4096;

/**
 * Reads message records where the keydir says they are, in journal files and message files.
 * Reads are synchronous `pread`s on files kept open: a record is usually in the OS's page cache,
 * where a synchronous read takes microseconds and a trip through libuv's thread pool costs more
 * than the read (the way SQLite bindings read). Records next to each other on disk (a
 * conversation's messages, written together) are read at once.
 */
export class MessageReader {
  readonly #handles = new Map<number, number>();

  constructor(private readonly file: string) {}

  pathOf(file: number): string {
    return file > 0 ? journalPath(this.file, file) : messageFilePath(this.file, -file);
  }

  /**
   * The records at `locations`, parsed, index for index (undefined where the bytes do not parse).
   * Records next to each other in a message file (a conversation's, as compaction writes them)
   * are parsed with one call: lines joined by commas make a JSON array.
   */
  read(locations: readonly Location[]): unknown[] {
    const values: unknown[] = new Array(locations.length);
    this.#inRuns(locations, (buffer, run, adjacent) => {
      const parsed = adjacent && run.length > 1 ? parseOrUndefined(`[${buffer.toString('utf8').replaceAll('\n', ',')}]`) : undefined;
      const whole = Array.isArray(parsed) && parsed.length === run.length;
      const base = locations[run[0]!]!.offset;
      run.forEach((index, i) => {
        const at = locations[index]!;
        values[index] = whole ? parsed[i] : parseOrUndefined(buffer.toString('utf8', at.offset - base, at.offset - base + at.length));
      });
    });
    return values;
  }

  /** The JSON texts at `locations`, index for index, as they are on disk (for copying them unparsed). */
  texts(locations: readonly Location[]): string[] {
    const texts: string[] = new Array(locations.length);
    this.#inRuns(locations, (buffer, run) => {
      const base = locations[run[0]!]!.offset;
      for (const index of run) {
        const at = locations[index]!;
        texts[index] = buffer.toString('utf8', at.offset - base, at.offset - base + at.length);
      }
    });
    return texts;
  }

  /**
   * Reads `locations` a run at a time: records of one file, each starting within COALESCE_GAP of
   * the last one's end, read at once. `use` gets the run's bytes (valid until the next read), the
   * indices of its locations in file order, and whether they are whole lines next to each other.
   */
  #inRuns(locations: readonly Location[], use: (buffer: Buffer, run: number[], adjacent: boolean) => void): void {
    const order = locations.map((_, i) => i);
    // A conversation's messages are usually in order on disk already: sorted only when they are not.
    const before = (a: number, b: number) => locations[a]!.file - locations[b]!.file || locations[a]!.offset - locations[b]!.offset;
    for (let i = 1; i < order.length; i++) {
      if (before(order[i - 1]!, order[i]!) > 0) {
        order.sort(before);
        break;
      }
    }
    for (let start = 0; start < order.length; ) {
      const first = locations[order[start]!]!;
      let end = start + 1;
      let runEnd = first.offset + first.length;
      let adjacent = first.file < 0;
      while (end < order.length) {
        const next = locations[order[end]!]!;
        if (next.file !== first.file || next.offset > runEnd + COALESCE_GAP) break;
        adjacent &&= next.offset === runEnd + 1;
        runEnd = Math.max(runEnd, next.offset + next.length);
        end++;
      }
      use(this.#readAt(first.file, first.offset, runEnd - first.offset), order.slice(start, end), adjacent);
      start = end;
    }
  }

  /** Reused by every read: its bytes are decoded into strings before the next read. */
  #scratch = Buffer.allocUnsafe(64 * 1024);

  #readAt(file: number, offset: number, length: number): Buffer {
    if (length > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(Math.max(length, this.#scratch.length * 2));
    const buffer = this.#scratch.subarray(0, length);
    let handle = this.#handles.get(file);
    if (handle === undefined) this.#handles.set(file, (handle = openOwnFileToReadSync(this.pathOf(file))));
    let read = 0;
    while (read < length) {
      const got = readSync(handle, buffer, read, length - read, offset + read);
      if (got === 0) throw new Error(`The message file ${this.pathOf(file)} ends at byte ${offset + read}, before a record it holds.`);
      read += got;
    }
    return buffer;
  }

  /** Closes the file `file` (it is about to be deleted), or every file. */
  close(file?: number): void {
    for (const [number, handle] of this.#handles) {
      if (file !== undefined && number !== file) continue;
      closeSync(handle);
      this.#handles.delete(number);
    }
  }
}

/**
 * Writes a message file, a new one (see own-files.ts): one record per line, as the journal wrote
 * them. Answers each record's location, index for index, once the file is flushed to disk.
 */
export async function writeMessageFile(
  target: string,
  index: number,
  texts: Iterable<string>,
  warn: Warn,
  slices = new Slices(),
): Promise<Location[]> {
  const locations: Location[] = [];
  await writeNewFile(target, warn, async (handle) => {
    let offset = 0;
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    for (const text of texts) {
      const bytes = Buffer.from(`${text}\n`);
      locations.push({ file: -index, offset, length: bytes.length - 1 });
      offset += bytes.length;
      chunk.push(bytes);
      chunkBytes += bytes.length;
      if (chunkBytes >= 1 << 20) {
        await writeAll(handle, chunk);
        chunk = [];
        chunkBytes = 0;
      }
      if (slices.due) await slices.next();
    }
    await writeAll(handle, chunk);
  });
  await syncFolder(path.dirname(target));
  return locations;
}

/** The first line of a hint file. */
export interface HintHeader {
  readonly version: number;
  /** The last journal entry the snapshot that names this hint holds. */
  readonly journalSeq: number;
  /** The message files its locations point into. */
  readonly messageFiles: readonly number[];
  /** The message files of the hint before it (the backup snapshot's), kept until the next compaction. */
  readonly backupMessageFiles?: readonly number[];
}

/**
 * One line of a hint file: a conversation and where each of its messages is, in its order; or
 * (`c: null`) messages no conversation lists, named in `ids`.
 */
export interface HintLine {
  /** The conversation's id, or null for the line of unlisted messages. */
  readonly c: string | null;
  /** With `c: null`: the messages' ids, index for index with `at`. */
  readonly ids?: readonly string[];
  /**
   * `[file, offset, length, order]` per message, flattened, in the order of the conversation's
   * `messages` (`order`: the message's place in the order messages were made, across conversations).
   */
  readonly at: readonly number[];
}

/**
 * Reads a hint file: answers its header, and hands each line to `onLine` as it is parsed (a line
 * at a time, so the parsed file is never held whole). Throws naming the file when it is damaged.
 */
export async function readHint(target: string, onLine: (line: HintLine, lineNumber: number) => void): Promise<HintHeader> {
  let bytes: Buffer;
  try {
    bytes = await readOwnFile(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        `The hint file ${target} is missing: the snapshot says where the messages are is written there. Nothing was changed; see the README on recovery.`,
      );
    }
    throw error;
  }
  const damaged = (line: number, why: string) =>
    new Error(`The hint file ${target} is damaged at line ${line}: ${why}. Nothing was changed; see the README on recovery.`);
  if (bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a) throw damaged(1, 'it does not end with a whole line');
  let header: HintHeader | undefined;
  let lineNumber = 0;
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    const text = bytes.toString('utf8', start, end);
    start = end + 1;
    lineNumber++;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw damaged(lineNumber, 'the line does not parse');
    }
    if (!header) {
      header = value as HintHeader;
      if (!Number.isInteger(header?.journalSeq) || !Array.isArray(header.messageFiles))
        throw damaged(1, 'the header lacks journalSeq or messageFiles');
      continue;
    }
    const line = value as HintLine;
    const named = typeof line?.c === 'string' || (line?.c === null && Array.isArray(line.ids) && line.ids.length * 4 === line.at?.length);
    if (!named || !Array.isArray(line.at) || line.at.length % 4 !== 0) throw damaged(lineNumber, 'it is not a hint line');
    onLine(line, lineNumber);
  }
  return header!;
}

/** Writes a hint file, a new one (see own-files.ts), and flushes it. */
export async function writeHint(
  target: string,
  header: HintHeader,
  lines: Iterable<string>,
  warn: Warn,
  slices = new Slices(),
): Promise<void> {
  await writeNewFile(target, warn, async (handle) => {
    let chunk = `${JSON.stringify(header)}\n`;
    for (const line of lines) {
      chunk += `${line}\n`;
      if (chunk.length >= 1 << 20) {
        await writeAll(handle, [Buffer.from(chunk)]);
        chunk = '';
      }
      if (slices.due) await slices.next();
    }
    await writeAll(handle, [Buffer.from(chunk)]);
  });
  await syncFolder(path.dirname(target));
}
