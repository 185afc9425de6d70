import { closeSync, fstatSync, readSync } from 'node:fs';
import { openOwnFileToReadSync } from '../../files/own-files.js';
import { crc32 } from './crc32.js';
import { journalPath, messageFilePath } from './message-files.js';
import type { Location } from './message-index.js';

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Reads stretches closer than this with one read, not two. */
const COALESCE_GAP = 4096;

/** What one read of a run of records got: the bytes (valid until the next read), or why the file could not be read. */
interface RunBytes {
  readonly buffer: Buffer;
  /** Bytes read: fewer than asked where the file ends first. */
  readonly got: number;
  /** Where the file ends, when the read was cut short by it. */
  readonly fileEnd?: number;
  /** Why nothing could be read (the file is missing, say). */
  readonly failure?: string;
}

/**
 * Reads message records where the keydir says they are, in journal files and message files, and
 * checks each one's bytes against its CRC-32 (kept in the keydir), so a read verifies exactly the
 * bytes it reads. Reads are synchronous `pread`s on files kept open: a record is usually in the
 * OS's page cache, where a synchronous read takes microseconds and a trip through libuv's thread
 * pool costs more than the read (the way SQLite bindings read). Records next to each other on
 * disk (a conversation's messages, written together) are read at once.
 *
 * A record that cannot be read whole (its file ends first, or is missing) or fails its checksum is
 * answered with a reason, never thrown: the caller decides what damage means for its answer.
 */
export class MessageReader {
  /** Open files by number, with the size of a message file (written once, never grown) to bound reads by. */
  readonly #handles = new Map<number, { fd: number; size: number }>();

  constructor(private readonly file: string) {}

  pathOf(file: number): string {
    return file > 0 ? journalPath(this.file, file) : messageFilePath(this.file, -file);
  }

  /**
   * The records at `locations`, parsed, index for index; where one cannot be used, undefined in
   * `values` and the reason in `problems`. `verify: false` skips the checksums (a store still
   * being migrated from version 5 has none). Records next to each other in a message file (a
   * conversation's, as compaction writes them) are parsed with one call: lines joined by commas
   * make a JSON array.
   */
  read(locations: readonly Location[], verify = true): { values: unknown[]; problems: (string | undefined)[] } {
    const values: unknown[] = new Array(locations.length);
    const problems: (string | undefined)[] = new Array(locations.length);
    this.#inRuns(locations, (bytes, run, adjacent) => {
      const base = locations[run[0]!]!.offset;
      let whole = true;
      for (const index of run) {
        const problem = problemOf(bytes, locations[index]!, base, verify);
        problems[index] = problem;
        if (problem) whole = false;
      }
      const parsed =
        whole && adjacent && run.length > 1
          ? parseOrUndefined(`[${bytes.buffer.toString('utf8', 0, bytes.got).replaceAll('\n', ',')}]`)
          : undefined;
      const joined = Array.isArray(parsed) && parsed.length === run.length;
      run.forEach((index, i) => {
        if (problems[index]) return;
        const at = locations[index]!;
        const value = joined ? parsed[i] : parseOrUndefined(bytes.buffer.toString('utf8', at.offset - base, at.offset - base + at.length));
        if (value === undefined) problems[index] = 'the record does not parse';
        else values[index] = value;
      });
    });
    return { values, problems };
  }

  /** Why each record at `locations` cannot be used (its checksum alone, no parse), index for index; undefined where it is sound. */
  check(locations: readonly Location[]): (string | undefined)[] {
    const problems: (string | undefined)[] = new Array(locations.length);
    this.#inRuns(locations, (bytes, run) => {
      const base = locations[run[0]!]!.offset;
      for (const index of run) problems[index] = problemOf(bytes, locations[index]!, base, true);
    });
    return problems;
  }

  /**
   * The JSON texts at `locations`, index for index, as they are on disk (for copying them
   * unparsed, and unchecked: a damaged record is copied as it is, and stays damaged); a record
   * cut short by the end of its file is answered as far as it goes, with the CRC-32 of what there is.
   */
  texts(locations: readonly Location[]): { texts: string[]; crcs: number[] } {
    const texts: string[] = new Array(locations.length);
    const crcs: number[] = new Array(locations.length);
    this.#inRuns(locations, (bytes, run) => {
      const base = locations[run[0]!]!.offset;
      for (const index of run) {
        const at = locations[index]!;
        const start = Math.min(at.offset - base, bytes.got);
        const end = Math.min(at.offset - base + at.length, bytes.got);
        texts[index] = bytes.buffer.toString('utf8', start, end);
        crcs[index] = crc32(bytes.buffer.subarray(start, end));
      }
    });
    return { texts, crcs };
  }

  /**
   * Reads `locations` a run at a time: records of one file, each starting within COALESCE_GAP of
   * the last one's end, read at once. `use` gets the run's bytes, the indices of its locations in
   * file order, and whether they are whole lines next to each other.
   */
  #inRuns(locations: readonly Location[], use: (bytes: RunBytes, run: number[], adjacent: boolean) => void): void {
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

  #readAt(file: number, offset: number, length: number): RunBytes {
    let handle = this.#handles.get(file);
    if (handle === undefined) {
      try {
        const fd = openOwnFileToReadSync(this.pathOf(file));
        // A message file's size bounds its reads: a location edited to point past it reads nothing
        // rather than allocate what it claims. A journal file grows; its locations are the store's own.
        handle = { fd, size: file < 0 ? fstatSync(fd).size : Number.POSITIVE_INFINITY };
        this.#handles.set(file, handle);
      } catch (error) {
        return {
          buffer: this.#scratch,
          got: 0,
          failure: `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        };
      }
    }
    const wanted = Math.max(0, Math.min(length, handle.size - offset));
    if (wanted > this.#scratch.length) this.#scratch = Buffer.allocUnsafe(Math.max(wanted, this.#scratch.length * 2));
    let read = 0;
    while (read < wanted) {
      const got = readSync(handle.fd, this.#scratch, read, wanted - read, offset + read);
      if (got === 0) break;
      read += got;
    }
    if (read === length) return { buffer: this.#scratch, got: read };
    return { buffer: this.#scratch, got: read, fileEnd: Math.min(handle.size, offset + read) };
  }

  /** Closes the file `file` (it is about to be deleted), or every file. */
  close(file?: number): void {
    for (const [number, handle] of this.#handles) {
      if (file !== undefined && number !== file) continue;
      closeSync(handle.fd);
      this.#handles.delete(number);
    }
  }
}

/** Why the record at `at` in a run read from `base` cannot be used, or undefined. */
function problemOf(bytes: RunBytes, at: Location, base: number, verify: boolean): string | undefined {
  if (bytes.failure) return bytes.failure;
  const start = at.offset - base;
  if (start + at.length > bytes.got)
    return `its file ends at byte ${bytes.fileEnd ?? base + bytes.got}, before the record does (byte ${at.offset + at.length})`;
  if (verify && crc32(bytes.buffer.subarray(start, start + at.length)) !== at.crc) return 'the record fails its checksum';
  return undefined;
}
