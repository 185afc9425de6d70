import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ConversationRecord } from '../../records.js';
import { hintPath, messageFilePath, readHint } from './message-files.js';
import type { MessageStore } from './message-store.js';

/** The message files the loaded hint points into, and those the backup's hint does (kept until the next compaction). */
export interface LoadedHint {
  readonly messageFiles: readonly number[];
  readonly backupMessageFiles: readonly number[];
}

/**
 * Fills the keydir from hint file number `hint` (written in format `version`, that of the snapshot
 * naming it), whose snapshot holds journal entries up to `journalSeq` and `conversations`.
 *
 * Damage does not stop the start: a line that fails its checksum is used value by value (see
 * MessageStore.loadHintLine); the messages of a conversation whose line cannot be read at all are
 * lost (their places went with it) and answer DATA_DAMAGED; a damaged header line is rebuilt (every
 * message file on disk is kept until the next compaction writes a new hint). All of it is recorded
 * in the store's damage log. What stops the start, naming the file, is a hint or message file that
 * is missing, or a sound hint that does not belong to the snapshot.
 */
export async function loadHint(
  file: string,
  hint: number,
  version: number,
  journalSeq: number,
  conversations: ReadonlyMap<string, { readonly record: unknown }>,
  messages: MessageStore,
): Promise<LoadedHint> {
  const hintFile = hintPath(file, hint);
  const onDisk = await messageFilesOnDisk(file);
  // Sized once for every message the conversations list, before the first line is read.
  let listed = 0;
  for (const row of conversations.values()) listed += (row.record as ConversationRecord).messages.length;
  messages.index.reserve(listed);
  const withLine = new Set<string>();
  const unusable: number[] = [];
  const header = await readHint(
    hintFile,
    version,
    (line, place) => {
      const conversation = line.c === null ? undefined : (conversations.get(line.c)?.record as ConversationRecord | undefined);
      if (!messages.loadHintLine(line, conversation, hint, version, place, onDisk)) unusable.push(place.offset);
      else if (line.c !== null) withLine.add(line.c);
    },
    (damage) => {
      messages.damage.line(path.basename(hintFile), damage.offset);
      if (damage.lineNumber > 1) unusable.push(damage.offset);
    },
  );
  if (unusable.length > 0) {
    // Lines are written in the snapshot's order of its conversations (those with messages): the
    // n-th line that could not be used is most likely the n-th conversation left without one.
    let n = 0;
    for (const { record } of conversations.values()) {
      const conversation = record as ConversationRecord;
      if (conversation.messages.length === 0 || withLine.has(conversation.id)) continue;
      messages.markLost(conversation.messages, hint, unusable[Math.min(n++, unusable.length - 1)]!);
    }
  }
  if (!header) return { messageFiles: [...onDisk].sort((a, b) => a - b), backupMessageFiles: [] };
  if (header.journalSeq !== journalSeq) {
    throw new Error(
      `The hint file ${hintFile} belongs to another snapshot (entry ${header.journalSeq}, not ${journalSeq}). Nothing was changed; see the README on recovery.`,
    );
  }
  for (const index of header.messageFiles) {
    if (!onDisk.has(index))
      throw new Error(
        `The message file ${messageFilePath(file, index)} is missing: the hint file ${hintFile} says messages are there. Nothing was changed; see the README on recovery.`,
      );
  }
  return { messageFiles: header.messageFiles, backupMessageFiles: header.backupMessageFiles ?? [] };
}

/** The numbers of the message files `<file>.messages-<n>` beside `file`. */
async function messageFilesOnDisk(file: string): Promise<Set<number>> {
  const prefix = `${path.basename(file)}.messages-`;
  const names = await readdir(path.dirname(file));
  return new Set(
    names
      .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
      .map((name) => Number(name.slice(prefix.length))),
  );
}
