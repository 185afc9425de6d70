import { createHash } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { syncFolder } from '../stores/json-file/durable-fs.js';
import { writeAll } from '../stores/json-file/journal.js';
import { type IndexDump, TextIndex } from './text-index.js';

const MAGIC = 'conversation-model-service search index\n';
const VERSION = 2;
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
export async function writeIndexFile(file: string, index: TextIndex, covers: number): Promise<void> {
  const dump = index.dump();
  const text = (value: unknown) => Buffer.from(JSON.stringify(value));
  const bytes = (array: ArrayBufferView) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const pool = Buffer.concat(
    dump.pool.chunks.map((chunk, i) => (i === dump.pool.chunks.length - 1 ? chunk.subarray(0, dump.pool.top - i * CHUNK_BYTES) : chunk)),
  );
  const sections = [
    Buffer.from(dump.terms.join('\n')),
    bytes(Int32Array.from(dump.lists)),
    text(dump.ids),
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
  const hash = createHash('sha256');
  for (const section of sections) hash.update(section);
  const header: Header = {
    version: VERSION,
    covers,
    sections: sections.map((s) => s.length),
    top: dump.pool.top,
    lists: dump.pool.lists,
    sha256: hash.digest('hex'),
  };
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await writeAll(handle, [Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...sections]);
    await handle.sync();
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  await syncFolder(path.dirname(file));
}

/**
 * The index in `file` and the writes it covers, or undefined when there is none or it cannot be
 * trusted (another version, a checksum that does not match, a file cut short): the caller then
 * builds the index again from the store.
 */
export async function readIndexFile(file: string): Promise<{ index: TextIndex; covers: number } | undefined> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
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
    const checksum = createHash('sha256');
    for (const section of sections) checksum.update(section);
    if (checksum.digest('hex') !== header.sha256) return undefined;
    // Copied into buffers of their own: typed arrays need their alignment, and the file's buffer can go.
    const copy = <T>(section: Buffer, make: new (buffer: ArrayBuffer) => T): T =>
      make === (Uint8Array as unknown) ? (new Uint8Array(section) as T) : new make(new Uint8Array(section).buffer);
    const [terms, lists, ids, conversations, owner, field, length, created, updated, hashes, head, write, end, last, count, levels, pool] =
      sections;
    const chunks: Uint8Array[] = [];
    for (let start = 0; start < pool!.length; start += CHUNK_BYTES) {
      const chunk = new Uint8Array(CHUNK_BYTES);
      chunk.set(pool!.subarray(start, start + CHUNK_BYTES));
      chunks.push(chunk);
    }
    const dump: IndexDump = {
      terms: terms!.length === 0 ? [] : terms!.toString().split('\n'),
      lists: [...copy(lists!, Int32Array)],
      ids: JSON.parse(ids!.toString()),
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
    return { index: TextIndex.restore(dump), covers: header.covers };
  } catch {
    return undefined;
  }
}
