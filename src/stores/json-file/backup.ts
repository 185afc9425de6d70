import { type FileHandle, lstat } from 'node:fs/promises';
import path from 'node:path';
import { createOwnFile, openOwnFileToRead } from '../../files/own-files.js';
import { writeAll } from '../../files/write-all.js';
import type { BackupReport } from '../../ports.js';
import { writeBackupFolder } from './backup-folder.js';
import { hintPath, journalPath, listNumbered, messageFilePath } from './message-files.js';
import { SnapshotFile } from './snapshot.js';

/** What a JSON-file store tells its backup: where its files are, and what it holds at the instant the backup begins. */
export interface BackupSource {
  /** The snapshot (`<folder>/db.json`): the store's other files are beside it. */
  readonly file: string;
  /**
   * Holds compactions off until the answered function is called (see CompactionGate): from then
   * on no file is rewritten or removed, the journal only grows, and no journal file is begun.
   */
  hold(): Promise<() => void>;
  /**
   * The journal file written to now, and how many of its bytes are whole lines on disk: every
   * write acknowledged so far ends within them (a line is counted once flushed, before its write
   * is acknowledged); a line being written lies past them.
   */
  journal(): { readonly index: number; readonly bytes: number };
  /**
   * Whether the search index file (`<file>.search`) holds no write the journal does not (see
   * SearchFile.fileIsCurrent): only then is it copied; without it the backup's first open builds
   * the index again from the records.
   */
  searchIndexCurrent(): boolean;
}

/**
 * Backs up a JSON-file store by its files, while it serves (the SQLite online-backup idea). With
 * compactions held off, the store's files are fixed but for the journal, which only grows: the
 * snapshot (or, after a crash between its two renames, `.bak`), the hint and the message files it
 * names are copied whole, the journal files from the one the snapshot names up to the current
 * one, and the current one up to the bytes noted at the hold. That is a prefix of whole
 * transactions holding every write acknowledged before the hold, and no part of a later one. The
 * previous snapshot (`.bak`), the files only it needs, and the lock are not copied: the copy opens
 * as a store of its own (`createJsonFileRepository`). See writeBackupFolder for the all-or-nothing
 * folder and a full disk.
 */
export async function backupStoreFiles(source: BackupSource, folder: string): Promise<BackupReport> {
  return writeBackupFolder(folder, async (temporary) => {
    const release = await source.hold();
    try {
      const journal = source.journal();
      const withIndex = source.searchIndexCurrent();
      await copyStore(source.file, temporary, journal, withIndex);
    } finally {
      release();
    }
  });
}

async function copyStore(file: string, into: string, journal: { index: number; bytes: number }, withIndex: boolean): Promise<void> {
  const name = path.basename(file);
  const target = path.join(into, name);
  const snapshot = (await exists(file)) ? file : (await exists(`${file}.bak`)) ? `${file}.bak` : undefined;
  // A store whose first snapshot was never written (only the journal) opens from its journal alone.
  const names = snapshot ? await copyWhole(snapshot, target).then(() => namedFiles(target)) : {};
  for (const { index } of await listNumbered(file, 'journal')) {
    // Files before the one the snapshot names are all in it (kept for `.bak`); none after the current one exists while held.
    if ((names.journal !== undefined && index < names.journal) || index > journal.index) continue;
    const copied = path.join(into, path.basename(journalPath(file, index)));
    if (index === journal.index) await copyPrefix(journalPath(file, index), copied, journal.bytes);
    else await copyWhole(journalPath(file, index), copied);
  }
  if (names.hint !== undefined) {
    const hint = hintPath(file, names.hint);
    await copyWhole(hint, path.join(into, path.basename(hint)));
    // The message files the hint points into; when its header cannot be read (damaged), every one
    // there is, as the store's own open keeps them all then.
    const listed = await messageFilesOf(hint);
    for (const { index } of await listNumbered(file, 'messages')) {
      if (listed && !listed.includes(index)) continue;
      await copyWhole(messageFilePath(file, index), path.join(into, path.basename(messageFilePath(file, index))));
    }
  }
  if (withIndex && (await exists(`${file}.search`))) await copyWhole(`${file}.search`, path.join(into, `${name}.search`));
}

/** The journal and hint files a snapshot names (from its first lines, or, laid out otherwise, from the whole file). */
async function namedFiles(snapshot: string): Promise<{ journal?: number; hint?: number }> {
  const handle = await openOwnFileToRead(snapshot);
  let head: string;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
  // The header lines this store writes: `{`, then `"version": 7,`, `"journalSeq": …`, `"journal": …`, `"hint": …`, `"store": …`.
  if (/^\{\n"version": \d+,\n"journalSeq": \d+/.test(head)) {
    // Up to the first collection's line: a record's text never counts as a header field.
    const collections = head.search(/^"\w+": \[/m);
    const header = collections === -1 ? head : head.slice(0, collections);
    const field = (key: string) => {
      const value = new RegExp(`^"${key}": (\\d+),?$`, 'm').exec(header)?.[1];
      return value === undefined ? undefined : Number(value);
    };
    return { journal: field('journal'), hint: field('hint') };
  }
  const data = await new SnapshotFile(snapshot).read();
  return { journal: data?.journal, hint: data?.hint };
}

/** Enough of a snapshot's start to hold its header lines. */
const HEAD_BYTES = 4096;

/** The message files a hint file's header names, or undefined when its first line cannot be read. */
async function messageFilesOf(hint: string): Promise<readonly number[] | undefined> {
  const handle = await openOwnFileToRead(hint);
  try {
    const buffer = Buffer.alloc(HINT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(0x0a);
    const header = JSON.parse(buffer.toString('utf8', 0, end === -1 ? bytesRead : end)) as { messageFiles?: unknown };
    const files = header.messageFiles;
    return Array.isArray(files) && files.every((index) => Number.isSafeInteger(index)) ? (files as number[]) : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** A hint header names a few file numbers: far less than this. */
const HINT_HEAD_BYTES = 64 * 1024;

const exists = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** Copies all of `from` (a file nothing changes while the copy runs) to `to`, a new file. */
async function copyWhole(from: string, to: string): Promise<void> {
  await copy(from, to, undefined);
}

/** Copies the first `length` bytes of `from` (which may grow meanwhile) to `to`, a new file. */
async function copyPrefix(from: string, to: string, length: number): Promise<void> {
  await copy(from, to, length);
}

const CHUNK = 1 << 20;

async function copy(from: string, to: string, length: number | undefined): Promise<void> {
  const source = await openOwnFileToRead(from);
  let target: FileHandle | undefined;
  try {
    const total = length ?? (await source.stat()).size;
    // The folder is new and the backup's own: nothing stands in the way, so nothing is said.
    target = await createOwnFile(to, () => undefined);
    const buffer = Buffer.alloc(Math.min(CHUNK, Math.max(total, 1)));
    for (let at = 0; at < total; ) {
      const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, total - at), at);
      if (bytesRead === 0) throw new Error(`${from} ended at byte ${at}, before the ${total} bytes its backup needs.`);
      await writeAll(target, [buffer.subarray(0, bytesRead)]);
      at += bytesRead;
    }
  } finally {
    await target?.close();
    await source.close();
  }
}
