import { createHmac, type Hmac, timingSafeEqual } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { writeBuffersAtomically } from '../files/durable-fs.js';
import { openOwnFileToRead, type Warn } from '../files/own-files.js';
import { runInSlices, Slices } from '../slices.js';
import type { FlushLimits } from './term-dictionary.js';
import { BLOCK_TERMS, TermSegment, validateSegment } from './term-segment.js';
import { type IndexParts, TextIndex } from './text-index.js';

const MAGIC = 'conversation-model-service search index\n';
const VERSION = 4;
/** The header line is this long at most: it is read alone first, to know what the file claims. */
const HEADER_BYTES = 4096;
/** Bytes read (and checksummed) at once: the event loop gets a turn between two reads. */
const CHUNK_BYTES = 1 << 20;
/** Lines of ids split at once. */
const LINES_BYTES = 1 << 18;

/** The sections of the file, in order. */
const SECTIONS = ['ids', 'conversations', 'owner', 'field', 'length', 'created', 'updated', 'hash', 'blocks', 'terms'] as const;

/** What the header line says; `mac` is checked once the whole file is read. */
export interface IndexFileHeader {
  readonly version: number;
  /** The id of the store the index belongs to (see the JSON-file store's snapshot). */
  readonly store: string;
  /** What the index covers, in the store's terms: the journal entry it is current to. */
  readonly covers: number;
  readonly docs: number;
  readonly conversations: number;
  readonly terms: number;
  readonly postings: number;
  /**
   * Messages of the store the index was known to lack when it was saved (damaged on disk when it
   * was built, so left out): a start accepts an index that lacks that many, at most.
   */
  readonly unindexed: number;
  /** Bytes of each section, in order. */
  readonly sections: number[];
  /**
   * HMAC-SHA256, keyed by the store's id, of the other fields and every section: a file changed
   * anywhere, or made for another store (whatever its header says), is not trusted.
   */
  readonly mac: string;
}

/**
 * Writes the index's parts to `file` atomically (a temporary sibling, flushed, renamed into place):
 * a header line, then the documents' tables and the segment as raw bytes, each exactly as the
 * index holds them, so that reading it back is reading bytes. `covers` says which writes of the
 * store it holds, `unindexed` how many of the store's messages it lacks by design (see
 * {@link IndexFileHeader}); `store` (the store's id) keys its checksum. `warn` hears of an entry found where
 * the temporary file goes (see src/files/own-files.ts). The checksum is computed a slice at
 * a time, and the file written a MiB at a time.
 */
export async function writeIndexFile(
  file: string,
  parts: IndexParts,
  { covers, store, unindexed }: { covers: number; store: string; unindexed: number },
  warn: Warn,
): Promise<void> {
  const slices = new Slices();
  const bytes = (array: ArrayBufferView) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  // Ids hold no control characters (their schema refuses them): one per line, a dead document's empty.
  const sections: Uint8Array[][] = [
    await linesOf(parts.ids, slices),
    await linesOf(parts.conversations, slices),
    [bytes(parts.owner)],
    [bytes(parts.field)],
    [bytes(parts.length)],
    [bytes(parts.created)],
    [bytes(parts.updated)],
    [bytes(parts.hash)],
    [bytes(parts.segment.blocks)],
    [parts.segment.bytes],
  ];
  const fields = {
    version: VERSION,
    store,
    covers,
    docs: parts.ids.length,
    conversations: parts.conversations.length,
    terms: parts.segment.terms,
    postings: parts.segment.postings,
    unindexed,
    sections: sections.map((pieces) => pieces.reduce((sum, piece) => sum + piece.length, 0)),
  };
  const mac = createHmac('sha256', store).update(JSON.stringify(fields));
  for (const pieces of sections) await digest(mac, pieces, slices);
  const header: IndexFileHeader = { ...fields, mac: mac.digest('hex') };
  await writeBuffersAtomically(file, [Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...sections.flat()], warn);
}

/**
 * What the file's header line claims (unchecked: {@link readIndexFile} checks it), from its first
 * few KiB alone; or why the file cannot be what the store wants: a reason for the log.
 */
export async function readIndexHeader(file: string): Promise<{ header: IndexFileHeader } | { problem: string }> {
  let handle: FileHandle | undefined;
  try {
    handle = await openOwnFileToRead(file);
    return await headerOf(handle);
  } catch (error) {
    return { problem: `cannot be read (${(error as Error).message})` };
  } finally {
    await handle?.close();
  }
}

/**
 * The index in `file`, for the store `store`, or why it cannot be trusted (for the log): larger than
 * `maxBytes` (refused from its size, before any byte is read), another version, another store's,
 * a checksum that does not match (damaged, edited), cut short, or tables that disagree. Read a MiB
 * at a time straight into the buffers the index keeps, checksummed as it is read, then checked
 * and turned into an index a slice at a time: the event loop stays free throughout.
 */
export async function readIndexFile(
  file: string,
  store: string,
  maxBytes: number,
  limits: FlushLimits = {},
): Promise<{ index: TextIndex; covers: number; unindexed: number } | { problem: string }> {
  let handle: FileHandle | undefined;
  try {
    handle = await openOwnFileToRead(file);
    const { size } = await handle.stat();
    if (size > maxBytes) return { problem: tooLarge(size, maxBytes) };
    const read = await headerOf(handle);
    if ('problem' in read) return read;
    const { header, headerBytes } = read as { header: IndexFileHeader; headerBytes: number };
    if (header.store !== store) return { problem: `belongs to another store (${JSON.stringify(header.store)})` };
    const problem = shapeProblem(header, size - headerBytes);
    if (problem) return { problem };
    const slices = new Slices();
    const { mac, ...fields } = header;
    const hmac = createHmac('sha256', store).update(JSON.stringify(fields));
    const sections: Uint8Array<ArrayBuffer>[] = [];
    let at = headerBytes;
    for (const length of header.sections) {
      const section = new Uint8Array(length);
      for (let from = 0; from < length; from += CHUNK_BYTES) {
        const chunk = section.subarray(from, Math.min(length, from + CHUNK_BYTES));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, at + from);
        if (bytesRead !== chunk.length) return { problem: 'is cut short' };
        hmac.update(chunk);
        if (slices.due) await slices.next();
      }
      sections.push(section);
      at += length;
    }
    await handle.close();
    handle = undefined;
    const expected = hmac.digest();
    const given = Buffer.from(typeof mac === 'string' ? mac : '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { problem: 'does not match its checksum for this store (damaged, edited, or made for another store)' };
    const parts = await partsOf(header, sections, slices);
    if (!parts) return { problem: 'has tables that disagree with each other' };
    let index: TextIndex;
    try {
      index = await runInSlices(TextIndex.restore(parts, limits), slices);
    } catch (error) {
      return { problem: `has tables that disagree with each other (${(error as Error).message})` };
    }
    return { index, covers: header.covers, unindexed: header.unindexed };
  } catch (error) {
    return { problem: `cannot be read (${(error as Error).message})` };
  } finally {
    await handle?.close();
  }
}

/** Why a file of `size` bytes is refused unread, for the log. */
export function tooLarge(size: number, maxBytes: number): string {
  return `is ${size} bytes, more than an index of this store can take (${maxBytes} bytes): refused without reading it`;
}

async function headerOf(handle: FileHandle): Promise<{ header: IndexFileHeader; headerBytes: number } | { problem: string }> {
  const head = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const text = head.subarray(0, bytesRead).toString('latin1');
  if (!text.startsWith(MAGIC)) return { problem: 'is not a search index file' };
  const end = text.indexOf('\n', MAGIC.length);
  if (end < 0) return { problem: 'has no header line' };
  let header: IndexFileHeader;
  try {
    header = JSON.parse(text.slice(MAGIC.length, end));
  } catch {
    return { problem: 'has a header that is not JSON' };
  }
  if (typeof header !== 'object' || header === null) return { problem: 'has a header that is not an object' };
  if (header.version !== VERSION)
    return { problem: `was written by another release (version ${JSON.stringify(header.version)}, not ${VERSION})` };
  if (typeof header.store !== 'string' || !Number.isSafeInteger(header.covers))
    return { problem: 'has a header without its store or position' };
  return { header, headerBytes: end + 1 };
}

/** What is wrong with the sizes the header gives (for `body` bytes after it), if anything. */
function shapeProblem(header: IndexFileHeader, body: number): string | undefined {
  const { docs, conversations, terms, postings, unindexed, sections } = header;
  const counts = [docs, conversations, terms, postings, unindexed];
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) return 'has counts that are not numbers';
  if (!Array.isArray(sections) || sections.length !== SECTIONS.length || !sections.every((n) => Number.isSafeInteger(n) && n >= 0))
    return 'has sections that are not sizes';
  if (sections.reduce((sum, n) => sum + n, 0) !== body) return 'is not as long as its header says';
  const expected = [docs * 4, docs, docs * 2, docs * 4, docs * 4, docs * 4, Math.ceil(terms / BLOCK_TERMS) * 4];
  if (expected.some((size, i) => sections[i + 2] !== size)) return 'has tables of the wrong size';
  return undefined;
}

/** The index's parts from the file's sections (views on them, not copies), or undefined if they disagree. */
async function partsOf(header: IndexFileHeader, sections: Uint8Array<ArrayBuffer>[], slices: Slices): Promise<IndexParts | undefined> {
  const [idBytes, conversationBytes, owner, field, length, created, updated, hash, blocks, terms] = sections as [
    Uint8Array<ArrayBuffer>,
    ...Uint8Array<ArrayBuffer>[],
  ];
  const view = <T>(section: Uint8Array<ArrayBuffer>, make: new (buffer: ArrayBuffer) => T): T => new make(section.buffer);
  const ids = await splitLines(idBytes, header.docs, slices);
  const conversations = await splitLines(conversationBytes!, header.conversations, slices);
  if (!ids || !conversations || conversations.some((id) => id === undefined)) return undefined;
  const parts: IndexParts = {
    ids,
    conversations: conversations as string[],
    owner: view(owner!, Int32Array),
    field: field!,
    length: view(length!, Uint16Array),
    created: view(created!, Uint32Array),
    updated: view(updated!, Uint32Array),
    hash: view(hash!, Uint32Array),
    segment: new TermSegment(terms!, view(blocks!, Uint32Array), header.terms, header.postings),
  };
  for (let doc = 0; doc < header.docs; doc++) {
    if (parts.field[doc]! > 3 || parts.owner[doc]! < -1 || parts.owner[doc]! >= conversations.length) return undefined;
    if (doc % 4096 === 0 && slices.due) await slices.next();
  }
  return (await runInSlices(validateSegment(parts.segment, header.docs), slices)) ? parts : undefined;
}

/** `count` lines of UTF-8 (an empty one: undefined), split a slice at a time; undefined if there are not `count` of them. */
async function splitLines(bytes: Uint8Array, count: number, slices: Slices): Promise<(string | undefined)[] | undefined> {
  if (count === 0) return bytes.length === 0 ? [] : undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const lines: (string | undefined)[] = [];
  let start = 0;
  for (;;) {
    const cut = start + LINES_BYTES >= buffer.length ? -1 : buffer.indexOf(10, start + LINES_BYTES);
    const end = cut < 0 ? buffer.length : cut;
    for (const line of buffer.toString('utf8', start, end).split('\n')) lines.push(line === '' ? undefined : line);
    if (lines.length > count) return undefined;
    if (cut < 0) break;
    start = cut + 1;
    if (slices.due) await slices.next();
  }
  return lines.length === count ? lines : undefined;
}

/** `lines` as UTF-8, one per line (undefined: an empty line), in pieces of a slice each. */
async function linesOf(lines: readonly (string | undefined)[], slices: Slices): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  const step = 16384;
  for (let from = 0; from < lines.length; from += step) {
    const text = lines
      .slice(from, from + step)
      .map((line) => line ?? '')
      .join('\n');
    pieces.push(Buffer.from(from + step < lines.length ? `${text}\n` : text));
    if (slices.due) await slices.next();
  }
  return pieces;
}

/** Feeds `pieces` to `mac` a MiB at a time, giving the event loop a turn when a slice is used. */
async function digest(mac: Hmac, pieces: readonly Uint8Array[], slices: Slices): Promise<void> {
  for (const piece of pieces) {
    for (let at = 0; at < piece.length; at += CHUNK_BYTES) {
      mac.update(piece.subarray(at, Math.min(piece.length, at + CHUNK_BYTES)));
      if (slices.due) await slices.next();
    }
  }
}
