import { type FileHandle, unlink } from 'node:fs/promises';
import path, { basename } from 'node:path';
import { dataDamaged } from '../../errors.js';
import { syncFolder } from '../../files/durable-fs.js';
import { createOwnFile, openOwnFileToAppend, readOwnFile, SYNCED_WRITES, truncateOwnFile, type Warn } from '../../files/own-files.js';
import { writeAll } from '../../files/write-all.js';
import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { Slices } from '../../slices.js';
import { recordProblem } from '../record-checks.js';
import { checkLine, checksumEnd, withChecksum } from './checked-lines.js';
import { crc32 } from './crc32.js';
import type { RecordPatch } from './record-patch.js';

/**
 * One write of a transaction: `[collection, id, record]` stores a whole record, `[collection, id,
 * null]` deletes one, and `[collection, id, patch, "patch"]` changes the stored record by a
 * {@link RecordPatch} (what changed, not the whole record).
 */
export type JournalChange = readonly [CollectionName, string, object | null] | readonly [CollectionName, string, RecordPatch, 'patch'];

/**
 * One committed transaction as the journal holds it. From version 6 its line ends with its
 * checksum, `"crc"` (see checked-lines.ts), which is not part of the entry.
 */
export interface JournalEntry {
  readonly seq: number;
  /** The data layout the records are in (see migrations); absent in entries of version 2. */
  readonly version?: number;
  readonly changes: readonly JournalChange[];
}

/** The entry's line, with its checksum. */
export const encodeEntry = (entry: JournalEntry): string => `${withChecksum(JSON.stringify(entry))}\n`;

/**
 * The last line of a journal file that was rotated away from: it names the file the journal goes on
 * in, so that a later file deleted by hand is missed at the next start instead of silently losing
 * the writes it held.
 */
const encodeTrailer = (continuedIn: number): string => `${withChecksum(JSON.stringify({ continuedIn }))}\n`;

/**
 * The same line as {@link encodeEntry}, encoded a slice at a time (see {@link Slices}): one
 * transaction that wrote 20,000 records does not stall other clients for the time it takes to
 * serialize them. Its changes may be made as they are taken (records are immutable, so encoding
 * them later is safe); a small entry is encoded at once.
 */
export async function encodeEntryInSlices(
  entry: { readonly seq: number; readonly version?: number; readonly changes: Iterable<JournalChange> },
  slices = new Slices(),
  spans?: RecordSpan[],
): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  // The line's checksum, taken piece by piece as the pieces are made (each in its slice).
  let crc = 0;
  const push = (piece: string) => {
    const bytes = Buffer.from(piece);
    crc = crc32(bytes, crc);
    parts.push(bytes);
  };
  let text = `{"seq":${entry.seq},${entry.version === undefined ? '' : `"version":${entry.version},`}"changes":[`;
  // Bytes of the line so far, text included: where a record starts, for `spans`. Counted piece by
  // piece, so a line of 20,000 records is not measured again for each one.
  let bytes = spans ? Buffer.byteLength(text) : 0;
  let first = true;
  for (const change of entry.changes) {
    if (spans && change[0] === 'messages' && change[2] !== null && change[3] === undefined) {
      // Written piece by piece, so the record's place in the line is known.
      const head = `${first ? '' : ','}[${JSON.stringify(change[0])},${JSON.stringify(change[1])},`;
      const record = JSON.stringify(change[2]);
      const length = Buffer.byteLength(record);
      bytes += Buffer.byteLength(head);
      // Its own checksum: a read of the message (its bytes alone, not the line's) checks it.
      spans.push({ id: change[1], start: bytes, length, crc: crc32(record) });
      bytes += length + 1;
      text += `${head}${record}]`;
    } else {
      const piece = `${first ? '' : ','}${JSON.stringify(change)}`;
      if (spans) bytes += Buffer.byteLength(piece);
      text += piece;
    }
    first = false;
    if (slices.due) {
      push(text);
      text = '';
      await slices.next();
    }
  }
  push(`${text}]`);
  parts.push(Buffer.from(checksumEnd(crc)));
  return parts;
}

/** Where a whole message record lies in an encoded journal line: its id, first byte and byte length, and the CRC-32 of those bytes. */
export interface RecordSpan {
  readonly id: string;
  readonly start: number;
  readonly length: number;
  readonly crc: number;
}

interface Deferred<T = void> {
  resolve(value: T): void;
  reject(error: unknown): void;
}
/** Where a line was written: the journal file's number and the line's first byte. */
export interface LineLocation {
  readonly file: number;
  readonly offset: number;
}
type Pending =
  | { line: string | Promise<Buffer[]>; done: Deferred<LineLocation> }
  | { rotateTo: { file: string; index: number }; done: Deferred };

/**
 * Appends journal lines with group commit: lines appended while a flush is under way wait for the
 * next one and share it, so many concurrent transactions cost one write and one flush (the write
 * itself, on a file opened with O_DSYNC; else an fdatasync after it).
 * `append` resolves once the line is on disk (or, with `durable: false`, handed to the OS).
 *
 * A failed write (a full disk, an I/O error) fails its batch and every line waiting behind it; the
 * file is cut back to its last whole line, `onFailure` is told first (so the owner can undo those
 * lines' changes), and later appends are tried again: the journal recovers by itself when space
 * returns. Only when the file cannot be cut back does the writer stop for good (`failed`). A failed
 * rotation fails only itself: lines keep going to the current file.
 */
export class JournalWriter {
  #handle: FileHandle;
  #pending: Pending[] = [];
  #running: Promise<void> | undefined;
  #failure: unknown;
  /** Bytes in the current journal file, all of them whole lines. */
  bytes = 0;
  /** Called when a write fails, before the appends it fails are rejected. */
  onFailure: ((error: unknown) => void) | undefined;

  /** The error that stopped the writer for good, if one did. */
  get failed(): unknown {
    return this.#failure;
  }

  private constructor(
    handle: FileHandle,
    private readonly durable: boolean,
    /** The number of the journal file lines go to now. */
    public index: number,
    private readonly warn: Warn,
  ) {
    this.#handle = handle;
  }

  /**
   * Opens `file`, journal number `index`, to append to it, creating it if missing; its lines must
   * all be whole. A link in its place is refused (see src/files/own-files.ts); `warn` says what a rotation
   * found in the place of the next file.
   */
  static async open(file: string, durable: boolean, index: number, warn: Warn): Promise<JournalWriter> {
    const handle = await openOwnFileToAppend(file, durable ? SYNCED_WRITES : 0);
    try {
      // A new file's name must be on disk too, or its flushed lines could vanish with it.
      if (durable) await syncFolder(path.dirname(file));
      const writer = new JournalWriter(handle, durable, index, warn);
      writer.bytes = (await handle.stat()).size;
      return writer;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Appends a line, or a line still being encoded: lines are written in the order they were
   * appended, whenever each is ready. Answers where the line was written.
   */
  append(line: string | Promise<Buffer[]>): Promise<LineLocation> {
    // A failed encoding fails its batch in #drain; until then it is not an unhandled rejection.
    if (typeof line !== 'string') line.catch(() => undefined);
    return this.#enqueue<LineLocation>((done) => ({ line, done }));
  }

  /**
   * Lines appended before this call go to the current file; later ones go to `file`, journal
   * number `index`, which the current file's last line then names.
   */
  rotate(file: string, index: number): Promise<void> {
    return this.#enqueue((done) => ({ rotateTo: { file, index }, done }));
  }

  async close(): Promise<void> {
    await this.#running;
    await this.#handle.close();
  }

  #enqueue<T>(make: (done: Deferred<T>) => Pending): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<T>((resolve, reject) => {
      this.#pending.push(make({ resolve, reject }));
      this.#running ??= this.#drain();
    });
  }

  /** Answers each line of `batch` its place: they were written one after another from `start`. */
  #resolveLines(batch: readonly Pending[], lines: readonly (string | Buffer[])[], start: number): void {
    let offset = start;
    batch.forEach((item, i) => {
      const line = lines[i]!;
      const at = { file: this.index, offset };
      offset += typeof line === 'string' ? Buffer.byteLength(line) : line.reduce((sum, part) => sum + part.length, 0);
      (item.done as Deferred<LineLocation>).resolve(at);
    });
  }

  async #drain(): Promise<void> {
    for (;;) {
      if (this.#pending.length === 0) {
        // Cleared in the same turn as this look at #pending, so no append can slip between the
        // two and wait for a drain that never comes.
        this.#running = undefined;
        return;
      }
      // Everything up to the next rotation shares one write and one flush.
      const end = this.#pending.findIndex((item) => 'rotateTo' in item);
      const batch = this.#pending.splice(0, end === 0 ? 1 : end === -1 ? this.#pending.length : end);
      const first = batch[0]!;
      if ('rotateTo' in first) {
        try {
          await this.#rotate(first.rotateTo);
          first.done.resolve();
        } catch (error) {
          first.done.reject(error);
          // The current file could not be put back as it was: nothing more may be written to it.
          if (this.#failure) {
            this.#failPending(error);
            this.#running = undefined;
            return;
          }
        }
        continue;
      }
      try {
        const lines = await Promise.all(batch.map((item) => ('line' in item ? item.line : '')));
        const buffers = lines.flatMap((line) => (typeof line === 'string' ? [Buffer.from(line)] : line));
        const written = await writeAll(this.#handle, buffers);
        // Files opened with SYNCED_WRITES are on disk when the write returns: one call to the
        // thread pool, not two (a third more durable writes a second for one writer at a time).
        if (this.durable && SYNCED_WRITES === 0) await this.#handle.datasync();
        // Counted once flushed: a failed flush cuts these lines off again.
        const start = this.bytes;
        this.bytes += written;
        this.#resolveLines(batch, lines, start);
      } catch (error) {
        // A failed write may have left part of a line: cut it, so later lines follow whole ones.
        const repaired = await this.#cutBack(error);
        this.#failPending(error, batch);
        if (!repaired) {
          this.#running = undefined;
          return;
        }
      }
    }
  }

  /** Cuts the file back to its whole lines; if that fails, the writer stops for good, for `cause`. */
  async #cutBack(cause: unknown): Promise<boolean> {
    try {
      await this.#handle.truncate(this.bytes);
      return true;
    } catch {
      this.#failure = cause;
      return false;
    }
  }

  /** Tells `onFailure`, then rejects `items` and every append still waiting. */
  #failPending(error: unknown, items: readonly Pending[] = []): void {
    this.onFailure?.(error);
    for (const item of [...items, ...this.#pending.splice(0)]) item.done.reject(error);
  }

  /**
   * Moves to a new file; on failure the current one stays in use, as it was. The new file is on
   * disk before the trailer that names it, so a crash between the two leaves no name pointing
   * nowhere (only an empty file, which the next start writes to).
   */
  async #rotate({ file, index }: { file: string; index: number }): Promise<void> {
    // A new file: nothing the journal has not written may stand in its place.
    const next = await createOwnFile(file, this.warn, this.durable ? SYNCED_WRITES : 0);
    try {
      // Flushed whatever the durability: after a power cut, a trailer naming a file whose name was
      // lost would stop the next start, where losing the last writes is all that mode allows.
      await syncFolder(path.dirname(file));
      await writeAll(this.#handle, [Buffer.from(encodeTrailer(index))]);
      await this.#handle.datasync();
    } catch (error) {
      await next.close().catch(() => undefined);
      // The trailer is cut before the file it names goes, so a crash between the two leaves no
      // name pointing nowhere. If it cannot be cut, the file stays (empty, named) and the writer
      // stops for good: nothing may follow a trailer.
      if (await this.#cutBack(error)) await unlink(file).catch(() => undefined);
      throw error;
    }
    await this.#handle.close().catch(() => undefined);
    this.#handle = next;
    this.index = index;
    this.bytes = 0;
  }
}

/** What replaying one journal file found. */
export interface JournalContents {
  readonly entries: JournalEntry[];
  /** The number of the journal file this one goes on in, when it was rotated away from. */
  readonly continuedIn?: number;
  /** Set when the last record was torn (cut short by a crash) and has been discarded. */
  readonly tornAt?: { readonly line: number; readonly offset: number };
}

/**
 * Reads a journal file. A last record that does not parse was cut short by a crash before it was
 * acknowledged: it is cut off the file (when `isLast`) and reported in `tornAt`. Any other record
 * that does not parse, or fails its checksum, is damage: DATA_DAMAGED names the file, line and
 * byte offset, and the store does not start. The journal is the write-ahead log: replaying the
 * entries after a damaged one without it would build records on a state that never was (a patch
 * to a record it created), and lose an acknowledged write without a word.
 */
export async function readJournal(path: string, isLast: boolean): Promise<JournalContents> {
  const buffer = await readOwnFile(path);
  const entries: JournalEntry[] = [];
  let offset = 0;
  let line = 0;
  let continuedIn: number | undefined;
  while (offset < buffer.length) {
    const newline = buffer.indexOf(0x0a, offset);
    const end = newline === -1 ? buffer.length : newline;
    line++;
    const text = buffer.toString('utf8', offset, end);
    const corrupt = (why: string) =>
      dataDamaged([
        {
          resource: 'journal entry',
          id: `line ${line}`,
          file: basename(path),
          offset,
          message: `The journal ${path} is corrupt at line ${line} (byte ${offset}): ${why}. Nothing was changed; see the README on recovery.`,
        },
      ]);
    if (continuedIn !== undefined && text.trim() !== '') throw corrupt('a record follows the line naming the next journal file');
    const check = text.trim() === '' ? 'none' : checkLine(buffer, offset, end);
    const trailer = /^\{"continuedIn":(\d+)(,"crc":\d+)?\}$/.exec(text);
    if (trailer && newline !== -1 && (check === 'ok' || !trailer[2])) {
      continuedIn = Number(trailer[1]);
      offset = end + 1;
      continue;
    }
    const entry = text.trim() === '' ? null : parseEntry(text);
    // Lines without a checksum were written before version 6; one of a later version lost it.
    const damaged = entry === undefined || check === 'mismatch' || (check === 'none' && entry !== null && (entry.version ?? 2) >= 6);
    if (damaged) {
      // Every line is written with its newline: only a last line without one was cut short by a
      // crash (and never acknowledged). A whole line that does not parse is damage, not a tear.
      if (!(newline === -1 && isLast)) {
        throw corrupt(entry === undefined ? 'the record does not parse' : 'the line fails its checksum');
      }
      await truncateOwnFile(path, offset);
      return { entries, continuedIn, tornAt: { line, offset } };
    }
    if (entry) {
      for (const [collection, , record, kind] of entry.changes) {
        const problem = record === null || kind === 'patch' ? undefined : recordProblem(collection, record);
        if (problem) throw corrupt(problem);
      }
      entries.push(entry);
    }
    offset = end + 1;
  }
  return { entries, continuedIn };
}

const COLLECTIONS: ReadonlySet<string> = new Set(COLLECTION_NAMES);

/** The entry, or undefined when the text is not a well-formed journal entry. */
function parseEntry(text: string): JournalEntry | undefined {
  let entry: JournalEntry;
  try {
    entry = JSON.parse(text) as JournalEntry;
  } catch {
    return undefined;
  }
  const wellFormed =
    Number.isInteger(entry?.seq) &&
    Array.isArray(entry.changes) &&
    entry.changes.every(
      (change) =>
        Array.isArray(change) &&
        COLLECTIONS.has(change[0]) &&
        typeof change[1] === 'string' &&
        (change[3] === 'patch'
          ? typeof change[2] === 'object' && change[2] !== null && !Array.isArray(change[2])
          : change.length === 3 &&
            (change[2] === null || (typeof change[2] === 'object' && (change[2] as { id?: unknown }).id === change[1]))),
    );
  return wellFormed ? entry : undefined;
}
