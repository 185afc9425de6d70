import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { writeBuffersAtomically } from '../stores/json-file/durable-fs.js';
import { openOwnFileToRead, readOwnFile } from '../stores/json-file/own-files.js';
import { type IndexDump, TextIndex } from './text-index.js';

const MAGIC = 'conversation-model-service search index\n';
const VERSION = 3;
const CHUNK_BYTES = 1 << 20;

interface Header {
  readonly version: number;
  /** What the index covers, in the store's terms (the journal entry it is current to). */
  readonly covers: number;
  /** Bytes of each section, in order. */
  readonly sections: number[];
  readonly top: number;
  readonly lists: number;
  readonly sha256: string;
}

/**
 * Writes the index to `file` atomically (a temporary sibling, flushed, renamed into place):
 * a header line, then its tables as raw bytes, with a checksum of them all. `covers` says which
 * writes of the store it holds.
 */
export async function writeIndexFile(file: string, index: TextIndex, covers: number, warn: (message: string) => void): Promise<void> {
  const dump = index.dump();
  const text = (value: unknown) => Buffer.from(JSON.stringify(value));
  // The dump's arrays are copies, taken now: writes go on while the file is written.
  const bytes = (array: ArrayBufferView) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const pool = Buffer.concat(dump.pool.chunks);
  const sections = [
    Buffer.from(dump.terms.join('\n')),
    bytes(Int32Array.from(dump.lists)),
    // Ids hold no control characters (their schema refuses them): one per line.
    Buffer.from(dump.ids.join('\n')),
    text(dump.conversations),
    bytes(dump.owner),
    bytes(dump.field),
    bytes(dump.length),
    bytes(dump.created),
    bytes(dump.updated),
    bytes(dump.hash),
    ...dump.pool.tables.map(bytes),
    bytes(dump.pool.levels),
    pool,
  ];
  const fields = { version: VERSION, covers, sections: sections.map((s) => s.length), top: dump.pool.top, lists: dump.pool.lists };
  const header: Header = { ...fields, sha256: checksum(fields, sections) };
  await writeBuffersAtomically(file, [Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...sections], warn);
}

/**
 * Which writes the index in `file` covers, read from its header alone (a few hundred bytes), or
 * undefined when there is no file or no header of this version. The whole file is read later,
 * by {@link readIndexFile}, which checks it.
 */
export async function readIndexCovers(file: string): Promise<number | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openOwnFileToRead(file);
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString();
    if (!text.startsWith(MAGIC)) return undefined;
    const end = text.indexOf('\n', MAGIC.length);
    const header = JSON.parse(text.slice(MAGIC.length, end)) as Header;
    return header.version === VERSION && Number.isSafeInteger(header.covers) ? header.covers : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * The index in `file` and the writes it covers, or undefined when there is none or it cannot be
 * trusted (another version, a checksum that does not match, a file cut short): the caller then
 * builds the index again from the store.
 */
export async function readIndexFile(file: string): Promise<{ index: TextIndex; covers: number } | undefined> {
  try {
    // Any failure to read it (missing, a folder, a link, no permission) means building it again.
    const buffer = await readOwnFile(file);
    if (buffer.subarray(0, MAGIC.length).toString() !== MAGIC) return undefined;
    const headerEnd = buffer.indexOf(10, MAGIC.length);
    const header = JSON.parse(buffer.subarray(MAGIC.length, headerEnd).toString()) as Header;
    if (header.version !== VERSION) return undefined;
    let at = headerEnd + 1;
    const sections = header.sections.map((size) => {
      const section = buffer.subarray(at, at + size);
      at += size;
      return section;
    });
    if (at !== buffer.length) return undefined;
    const { sha256, ...fields } = header;
    if (checksum(fields, sections) !== sha256) return undefined;
    // Copied into buffers of their own: typed arrays need their alignment, and the file's buffer can go.
    const copy = <T>(section: Buffer, make: new (buffer: ArrayBuffer) => T): T =>
      make === (Uint8Array as unknown) ? (new Uint8Array(section) as T) : new make(new Uint8Array(section).buffer);
    const [terms, lists, ids, conversations, owner, field, length, created, updated, hashes, head, write, end, last, count, levels, pool] =
      sections;
    const chunks: Uint8Array[] = [];
    for (let start = 0; start < pool!.length; start += CHUNK_BYTES) chunks.push(new Uint8Array(pool!.subarray(start, start + CHUNK_BYTES)));
    const dump: IndexDump = {
      terms: terms!.length === 0 ? [] : terms!.toString().split('\n'),
      lists: [...copy(lists!, Int32Array)],
      ids: ids!.length === 0 ? [] : ids!.toString().split('\n'),
      conversations: JSON.parse(conversations!.toString()),
      owner: copy(owner!, Int32Array),
      field: copy(field!, Uint8Array),
      length: copy(length!, Uint16Array),
      created: copy(created!, Uint32Array),
      updated: copy(updated!, Uint32Array),
      hash: copy(hashes!, Uint32Array),
      pool: {
        chunks,
        top: header.top,
        lists: header.lists,
        tables: [head!, write!, end!, last!, count!].map((table) => copy(table, Int32Array)),
        levels: copy(levels!, Uint8Array),
      },
    };
    if (!wellFormed(dump)) return undefined;
    return { index: TextIndex.restore(dump), covers: header.covers };
  } catch {
    return undefined;
  }
}

/** SHA-256 of the header's fields and every section: a file changed anywhere is not trusted. */
function checksum(fields: Omit<Header, 'sha256'>, sections: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(fields));
  for (const section of sections) hash.update(section);
  return hash.digest('hex');
}

/**
 * Whether the tables agree with each other: lengths, fields, owners, list numbers and places in
 * the pool in range. (The postings themselves are walked safely: see PostingPool.forEach.)
 */
function wellFormed(dump: IndexDump): boolean {
  const docs = dump.ids.length;
  const { pool } = dump;
  const capacity = pool.chunks.length * CHUNK_BYTES;
  const inRange = (values: ArrayLike<number>, low: number, high: number) => {
    for (let i = 0; i < values.length; i++) if (!(values[i]! >= low && values[i]! < high)) return false;
    return true;
  };
  return (
    Array.isArray(dump.ids) &&
    dump.ids.every((id) => typeof id === 'string') &&
    Array.isArray(dump.conversations) &&
    dump.conversations.every((id) => typeof id === 'string') &&
    dump.lists.length === dump.terms.length &&
    inRange(dump.lists, 0, pool.lists) &&
    [dump.owner, dump.field, dump.length, dump.created, dump.updated, dump.hash].every((table) => table.length === docs) &&
    inRange(dump.field, 0, 4) &&
    inRange(dump.owner, -1, dump.conversations.length) &&
    pool.top <= capacity &&
    pool.tables.every((table) => table.length === pool.lists) &&
    pool.levels.length === pool.lists &&
    pool.tables.slice(0, 3).every((table) => inRange(table, 0, pool.top + 1)) &&
    inRange(pool.tables[3]!, -1, docs) &&
    inRange(pool.tables[4]!, 0, docs + 1)
  );
}
