import { stat } from 'node:fs/promises';
import type { Warn } from '../../files/own-files.js';
import type { ConversationRecord } from '../../records.js';
import { Slices } from '../../slices.js';
import { crc32 } from './crc32.js';
import { JSON_FILE_FORMAT_VERSION } from './format-version.js';
import { hintPath, messageFilePath, writeHint, writeMessageFile } from './message-files.js';
import type { Location } from './message-index.js';
import type { MessageReader } from './message-reader.js';
import type { CapturedMessage, CapturedMessages } from './message-store.js';

/** What a compaction wrote for the messages. */
export interface WrittenMessageFiles {
  /** Messages copied into the new message file, and where each now is (or whose checksum was computed where it is). */
  readonly moved: readonly (readonly [CapturedMessage, Location])[];
  /** The message files the new hint points into. */
  readonly messageFiles: readonly number[];
  readonly hintBytes: number;
}

/** Reads copied a batch at a time, so neighbours on disk are read at once. */
const COPY_BATCH = 512;

/**
 * The messages' half of a compaction (number `index`): copies into a new message file every
 * captured message that is not in one yet (held in memory, or in a journal file about to go) and
 * those of message files that are mostly dead records (deleted or written again since), then
 * writes the hint file that says where each conversation's messages are, with each one's CRC-32.
 * Both are flushed before the snapshot that names them is written, so a crash leaves either the
 * old set or the new one. A copied record keeps the checksum it had, so one damaged on disk stays
 * damaged (and found) in its new place; `computeChecksums` (a migration from version 5, whose
 * records have none) computes them from the bytes as they are instead, reading every message.
 */
export async function writeMessageFiles(
  file: string,
  index: number,
  captured: CapturedMessages,
  conversations: readonly ConversationRecord[],
  reader: MessageReader,
  journalSeq: number,
  currentMessageFiles: readonly number[],
  warn: Warn,
  computeChecksums = false,
): Promise<WrittenMessageFiles> {
  const slices = new Slices();
  // Live bytes per message file: a file less than half alive is copied out, so dead records do not pile up.
  const all = [...captured.byConversation, captured.unlisted];
  const live = new Map<number, number>();
  for (const messages of all)
    for (const message of messages)
      if (message && 'location' in message && message.location.file < 0)
        live.set(message.location.file, (live.get(message.location.file) ?? 0) + message.location.length + 1);
  const sparse = new Set<number>();
  for (const number of currentMessageFiles) {
    const size = await stat(messageFilePath(file, number)).then(
      (stats) => stats.size,
      () => 0,
    );
    if ((live.get(-number) ?? 0) * 2 < size) sparse.add(-number);
  }
  const copies: CapturedMessage[] = [];
  for (const messages of all)
    for (const message of messages)
      if (message && (!('location' in message) || message.location.file > 0 || sparse.has(message.location.file))) copies.push(message);

  const moved: (readonly [CapturedMessage, Location])[] = [];
  const newPlace = new Map<CapturedMessage, Location>();
  if (copies.length > 0) {
    const locations = await writeMessageFile(messageFilePath(file, index), index, texts(copies, reader, computeChecksums), warn, slices);
    copies.forEach((message, i) => {
      moved.push([message, locations[i]!]);
      newPlace.set(message, locations[i]!);
    });
  }
  if (computeChecksums) {
    // The messages that stay where they are: their checksums, from their bytes.
    const copied = new Set(copies);
    const staying: Extract<CapturedMessage, { location: Location }>[] = [];
    for (const messages of all)
      for (const message of messages)
        if (message && 'location' in message && message.location.file < 0 && !copied.has(message)) staying.push(message);
    for (let start = 0; start < staying.length; start += COPY_BATCH) {
      const batch = staying.slice(start, start + COPY_BATCH);
      const { crcs } = reader.texts(batch.map((message) => message.location));
      batch.forEach((message, i) => {
        const place = { ...message.location, crc: crcs[i]! };
        moved.push([message, place]);
        newPlace.set(message, place);
      });
      if (slices.due) await slices.next();
    }
  }
  const placeOf = (message: CapturedMessage | undefined) =>
    message && (newPlace.get(message) ?? ('location' in message ? message.location : undefined));
  const atOf = (messages: readonly (CapturedMessage | undefined)[]) => {
    const at: number[] = [];
    for (const message of messages) {
      const place = placeOf(message);
      // A missing message (only a damaged store lacks one) keeps its place in the list as zeros.
      if (!place) at.push(0, 0, 0, 0, 0);
      else at.push(place.file, place.offset, place.length, message!.order, place.crc);
    }
    return at;
  };
  const lines = function* () {
    for (const [i, conversation] of conversations.entries()) {
      if (conversation.messages.length > 0) yield JSON.stringify({ c: conversation.id, at: atOf(captured.byConversation[i]!) });
    }
    // Messages no conversation lists, named one by one.
    if (captured.unlisted.length > 0)
      yield JSON.stringify({ c: null, ids: captured.unlisted.map((message) => message.id), at: atOf(captured.unlisted) });
  };
  // The header, written first, names every message file the lines point into.
  const files = new Set<number>();
  for (const messages of all)
    for (const message of messages) {
      const place = placeOf(message);
      // File 0: a message whose place was lost to damage, kept as lost.
      if (place && place.file < 0) files.add(-place.file);
    }
  const messageFiles = [...files].sort((a, b) => a - b);
  const target = hintPath(file, index);
  await writeHint(
    target,
    { version: JSON_FILE_FORMAT_VERSION, journalSeq, messageFiles, backupMessageFiles: currentMessageFiles },
    lines(),
    warn,
    slices,
  );
  const hintBytes = await stat(target).then(
    (stats) => stats.size,
    () => 0,
  );
  return { moved, messageFiles, hintBytes };
}

/**
 * The JSON text of each message to copy, with the checksum it must have: as the journal or message
 * file holds it, with the checksum the keydir has for it (or, with `computeChecksums`, that of
 * its bytes), or its record serialized, with the checksum of that text.
 */
function* texts(
  copies: readonly CapturedMessage[],
  reader: MessageReader,
  computeChecksums: boolean,
): Generator<{ text: string; crc: number }> {
  for (let start = 0; start < copies.length; start += COPY_BATCH) {
    const batch = copies.slice(start, start + COPY_BATCH);
    const located = batch.filter((message): message is Extract<CapturedMessage, { location: Location }> => 'location' in message);
    const read = reader.texts(located.map((message) => message.location));
    const byMessage = new Map<CapturedMessage, { text: string; crc: number }>(
      located.map((message, i) => [message, { text: read.texts[i]!, crc: computeChecksums ? read.crcs[i]! : message.location.crc }]),
    );
    for (const message of batch) {
      if ('record' in message) {
        const text = JSON.stringify(message.record);
        yield { text, crc: crc32(text) };
      } else yield byMessage.get(message)!;
    }
  }
}
