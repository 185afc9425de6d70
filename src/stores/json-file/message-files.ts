import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { syncFolder, writeNewFile } from '../../files/durable-fs.js';
import { readOwnFile, type Warn } from '../../files/own-files.js';
import { writeAll } from '../../files/write-all.js';
import { Slices } from '../../slices.js';
import { checkLine, withChecksum } from './checked-lines.js';
import type { Location } from './message-index.js';

/** Paths of the store's files, all beside the snapshot `file`. */
export const journalPath = (file: string, index: number) => `${file}.journal-${String(index).padStart(6, '0')}`;
export const messageFilePath = (file: string, index: number) => `${file}.messages-${String(index).padStart(6, '0')}`;
export const hintPath = (file: string, index: number) => `${file}.hint-${String(index).padStart(6, '0')}`;

/** The files `<file>.<kind>-<n>` beside `file` (`kind`: `journal`, `messages` or `hint`), by number. */
export async function listNumbered(file: string, kind: string): Promise<{ path: string; index: number }[]> {
  const prefix = `${path.basename(file)}.${kind}-`;
  const names = await readdir(path.dirname(file));
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ path: path.join(path.dirname(file), name), index: Number(name.slice(prefix.length)) }))
    .sort((a, b) => a.index - b.index);
}

/**
 * Writes a message file, a new one (see src/files/own-files.ts): one record per line, as the journal wrote
 * them, each given with the CRC-32 it must have (carried, not computed: a damaged record copied
 * stays damaged). Answers each record's location, index for index, once the file is flushed to disk.
 */
export async function writeMessageFile(
  target: string,
  index: number,
  records: Iterable<{ readonly text: string; readonly crc: number }>,
  warn: Warn,
  slices = new Slices(),
): Promise<Location[]> {
  const locations: Location[] = [];
  await writeNewFile(target, warn, async (handle) => {
    let offset = 0;
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    for (const { text, crc } of records) {
      const bytes = Buffer.from(`${text}\n`);
      locations.push({ file: -index, offset, length: bytes.length - 1, crc });
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
 * (`c: null`) messages no conversation lists, named in `ids`. From version 6 the line ends with
 * its own checksum (see checked-lines.ts).
 */
export interface HintLine {
  /** The conversation's id, or null for the line of unlisted messages. */
  readonly c: string | null;
  /** With `c: null`: the messages' ids, index for index with `at`. */
  readonly ids?: readonly string[];
  /**
   * Per message, in the order of the conversation's `messages`, flattened: `[file, offset,
   * length, order, crc]` (version 6; `order`: the message's place in the order messages were
   * made, across conversations; `crc`: the CRC-32 of its bytes), `[file, offset, length, order]`
   * in version 5.
   */
  readonly at: readonly number[];
}

/** Numbers per message in a hint line of each version. */
export const HINT_STRIDE: Readonly<Record<number, number>> = { 5: 4, 6: 5, 7: 5, 8: 5 };

/** Where a line of a hint file is, and whether it failed its checksum (its values may be wrong). */
export interface HintLinePlace {
  readonly lineNumber: number;
  readonly offset: number;
  readonly damaged: boolean;
}

/** A line of a hint file that could not be used at all. */
export interface HintDamage {
  readonly lineNumber: number;
  readonly offset: number;
  readonly reason: string;
}

/**
 * Reads a hint file of format `version` (5, or 6 with a checksum per line): hands each line to
 * `onLine` as it is parsed (a line at a time, so the parsed file is never held whole), and answers
 * the header line, or undefined when that line is damaged. A line that cannot be used (it does not
 * parse, or is cut short) goes to `onDamage`; one that parses but fails its checksum still goes to
 * `onLine`, marked damaged: its values are checked one by one (each message's own checksum among
 * them), so one wrong number costs one message, not the line. Throws only when the file is missing.
 */
export async function readHint(
  target: string,
  version: number,
  onLine: (line: HintLine, place: HintLinePlace) => void,
  onDamage: (damage: HintDamage) => void,
): Promise<HintHeader | undefined> {
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
  const stride = HINT_STRIDE[version] ?? 5;
  let header: HintHeader | undefined;
  let lineNumber = 0;
  for (let start = 0; start < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const offset = start;
    start = end + 1;
    lineNumber++;
    const damage = (reason: string) => onDamage({ lineNumber, offset, reason });
    if (newline === -1) {
      damage('the file ends in the middle of the line');
      break;
    }
    const check = version >= 6 ? checkLine(bytes, offset, end) : 'ok';
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8', offset, end));
    } catch {
      damage('the line does not parse');
      continue;
    }
    if (lineNumber === 1) {
      const read = value as HintHeader;
      if (
        check === 'ok' &&
        Number.isInteger(read?.journalSeq) &&
        isFileList(read.messageFiles) &&
        isFileList(read.backupMessageFiles ?? [])
      )
        header = read;
      else damage(check === 'ok' ? 'the header lacks journalSeq or messageFiles' : 'the header fails its checksum');
      continue;
    }
    const line = value as HintLine;
    const shaped =
      Array.isArray(line?.at) &&
      line.at.length % stride === 0 &&
      (typeof line.c === 'string' || (line.c === null && Array.isArray(line.ids) && line.ids.length * stride === line.at.length));
    if (!shaped) damage(check === 'ok' ? 'it is not a hint line' : 'the line fails its checksum, and is not a hint line');
    else onLine(line, { lineNumber, offset, damaged: check !== 'ok' });
  }
  if (lineNumber === 0) onDamage({ lineNumber: 1, offset: 0, reason: 'the file is empty' });
  return header;
}

const isFileList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((number) => Number.isSafeInteger(number) && number > 0);

/** Writes a hint file, a new one (see src/files/own-files.ts), each line (JSON objects' texts) with its checksum, and flushes it. */
export async function writeHint(
  target: string,
  header: HintHeader,
  lines: Iterable<string>,
  warn: Warn,
  slices = new Slices(),
): Promise<void> {
  await writeNewFile(target, warn, async (handle) => {
    let chunk = `${withChecksum(JSON.stringify(header))}\n`;
    for (const line of lines) {
      chunk += `${withChecksum(line)}\n`;
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
