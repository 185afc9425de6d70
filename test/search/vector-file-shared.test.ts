/**
 * The vectors file in a folder several processes share (instances on one database with one
 * `DATA_DIR`): two indexes saving one file at once, over and over, while a third reads it, as two
 * processes would (each save's temporary file is named by host, process and a random part, so two
 * in one process collide exactly as two processes would with a shared name). Every save succeeds,
 * every read finds one writer's whole file, nothing is removed that another writer was writing,
 * and no temporary file is left; one a dead writer left is removed.
 */
import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeAbandonedTemporaries } from '../../src/files/shared-files.js';
import { WRITER_HOST } from '../../src/files/writer-names.js';
import type { Embedder, RecordChange } from '../../src/ports.js';
import { VectorIndex } from '../../src/search/vector-index.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Vectors of this many numbers, made from the text without a server: a file of a few MiB is written in several chunks. */
const DIMENSION = 512;
const embedder: Embedder = {
  model: 'shared-test',
  embed: async (texts) =>
    texts.map((text) => {
      const vector = new Float32Array(DIMENSION);
      for (let i = 0; i < text.length; i++) vector[(text.charCodeAt(i) * 31 + i) % DIMENSION]! += 1;
      return vector;
    }),
};

const indexes: VectorIndex[] = [];
afterEach(async () => {
  for (const index of indexes.splice(0)) await index.close();
});

function open(file: string, warnings: string[]): VectorIndex {
  const index = new VectorIndex({
    embedder,
    file,
    logger: { warn: (message) => warnings.push(message) },
    readTexts: async (docs) => docs.map(() => undefined),
    batchSize: 500,
    // Saved only when told: the test decides when the two write at once.
    saveEvery: { vectors: Number.MAX_SAFE_INTEGER, ms: Number.MAX_SAFE_INTEGER },
  });
  indexes.push(index);
  return index;
}

const messages = (prefix: string, count: number, from = 0): RecordChange[] =>
  Array.from({ length: count }, (_, i) => {
    const id = `${prefix}${from + i}`;
    return {
      collection: 'messages',
      id,
      record: { id, conversation: 'c', role: 'USER', fragment: { string: { raw: `message ${id} of ${prefix}` } } },
    };
  });

describe('a vectors file two processes save', () => {
  it('is always one whole file, of one writer or the other, and every save succeeds', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'vectors-shared-test.bin');
    const warnings: string[] = [];
    // Different counts: a read tells whose file it found.
    const a = open(file, warnings);
    const b = open(file, warnings);
    a.apply(messages('a', 1500));
    b.apply(messages('b', 1700));
    await Promise.all([a.idle(), b.idle()]);

    const sizes = new Set<number>();
    let reading = true;
    // A reader that loads the file as often as it can meanwhile, as a third instance starting would.
    const reader = (async () => {
      let reads = 0;
      while (reading && reads < 200) {
        const index = new VectorIndex({ embedder, file, logger: { warn: (message) => warnings.push(message) }, readTexts: async () => [] });
        await index.load();
        sizes.add(index.size);
        reads++;
      }
      return reads;
    })();
    for (let round = 0; round < 8; round++) {
      // Each writes something new, so each save has a snapshot to write.
      a.apply(messages('a', 1, 1500 + round));
      b.apply(messages('b', 1, 1700 + round));
      await Promise.all([a.idle(), b.idle()]);
      await Promise.all([a.save(), b.save()]);
    }
    reading = false;
    expect(await reader).toBeGreaterThan(0);

    expect(warnings).toEqual([]);
    // Empty before the first save, then one writer's whole file at one round or another.
    for (const size of sizes) expect(size === 0 || (size > 1500 && size <= 1508) || (size > 1700 && size <= 1708)).toBe(true);
    const last = open(file, warnings);
    await last.load();
    expect([1508, 1708]).toContain(last.size);
    expect(await readdir(dir)).toEqual(['vectors-shared-test.bin']);
  });

  it("has a dead writer's temporary file removed, a live writer's left alone", async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'vectors-shared-test.bin');
    // Above any pid Linux gives (pid_max is at most 2^22): no process of this host has it.
    const dead = `vectors-shared-test.bin.${WRITER_HOST}-4194399-0badf00d.tmp`;
    const live = `vectors-shared-test.bin.${WRITER_HOST}-${process.pid}-1234abcd.tmp`;
    const otherHost = `vectors-shared-test.bin.00000000-1-1234abcd.tmp`;
    const staleOtherHost = `vectors-shared-test.bin.00000000-2-1234abcd.tmp`;
    const unrelated = 'vectors-other.bin.tmp';
    for (const name of [dead, live, otherHost, staleOtherHost, unrelated]) await writeFile(path.join(dir, name), 'bytes');
    // Unchanged for an hour: abandoned, whoever wrote it.
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(dir, staleOtherHost), hourAgo, hourAgo);

    await removeAbandonedTemporaries(file, 60_000);
    expect((await readdir(dir)).sort()).toEqual([live, otherHost, unrelated].sort());

    // A save removes them too.
    const warnings: string[] = [];
    await writeFile(path.join(dir, dead), 'bytes');
    const index = open(file, warnings);
    index.apply(messages('a', 3));
    await index.idle();
    await index.save();
    expect((await readdir(dir)).sort()).toEqual([live, otherHost, unrelated, 'vectors-shared-test.bin'].sort());
    expect(warnings).toEqual([]);
  });
});
