/**
 * The JSON-file store's search index: saved beside the snapshot (`db.json.search`) at each
 * compaction, read back at the next start and brought up to date from the journal, built again
 * from the records when it cannot be trusted. Crash images are copies of the folder taken while
 * the store is open, as a kill -9 would leave it (the kill -9 runs themselves: crash.test.ts).
 */
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository, createService, type SearchInput, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationWith, said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const quiet = { warn: () => undefined };
const query = (text: string): SearchInput => ({ engines: { iterable: [{ query: text }] } });
const found = async (service: Service, text: string) =>
  (await service.searchMessages(query(text), { transferables: false })).iterable.map((hit) => hit.identifier);

async function open(dataDir: string, warnings: string[] = []) {
  return createService({ dataDir, summarizer: createFakeSummarizer(), logger: { warn: (message) => warnings.push(message) } });
}

/** The folder as a crash would leave it now: every file as it is, no lock. */
async function crashImage(dataDir: string): Promise<string> {
  const copy = await tempDir();
  await cp(dataDir, copy, { recursive: true, filter: (source) => !source.endsWith('.lock') });
  return copy;
}

describe('the search index of the JSON-file store', () => {
  it('is saved at close and read back at the next start, not built again', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const chat = await conversationWith(first, said('USER', 'Configure the webpack dev server proxy'));
    await first.close();
    const index = path.join(dataDir, 'db.json.search');
    const saved = await stat(index);

    const second = await open(dataDir);
    expect(await found(second, 'webpack proxy')).toEqual([chat.messages.iterable[0]!.id]);
    // Read, not rewritten: a start that built it again would have saved it again.
    expect((await stat(index)).mtimeMs).toBe(saved.mtimeMs);
    await second.close();
  });

  it('catches up from the journal after a crash: writes after the last compaction, deletions, renames', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const kept = await conversationWith(first, said('USER', 'Postgres connection pool exhausted'));
    const doomed = await conversationWith(first, said('USER', 'Redis eviction policy question'));
    await first.close();

    const second = await open(dataDir);
    const later = await conversationWith(second, said('USER', 'Kafka consumer lag keeps growing'));
    await second.deleteConversation(doomed.id);
    await second.updateConversation({ id: kept.id, name: 'Database tuning' });
    const image = await crashImage(dataDir);
    await second.close();

    const warnings: string[] = [];
    const reopened = await open(image, warnings);
    expect(await found(reopened, 'kafka lag')).toEqual([later.messages.iterable[0]!.id]);
    expect(await found(reopened, 'redis eviction')).toEqual([]);
    const byName = await reopened.searchConversations(query('database tuning'), { transferables: false });
    expect(byName.iterable.map((hit) => hit.identifier)).toEqual([kept.id]);
    expect(warnings).toEqual([]);
    await reopened.close();
  });

  it('is built again from the records when the file is damaged, and saved whole', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const chat = await conversationWith(first, said('USER', 'Vite hot module reload stopped working'));
    await first.close();
    const index = path.join(dataDir, 'db.json.search');
    const bytes = await readFile(index);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    await writeFile(index, bytes);

    const second = await open(dataDir);
    expect(await found(second, 'vite reload')).toEqual([chat.messages.iterable[0]!.id]);
    await second.close();
    // The damaged file was replaced by a good one: the next start reads it.
    expect((await readFile(index)).equals(bytes)).toBe(false);
  });

  it('is built again when its header is changed (the header is in the checksum too), or it cannot be read at all', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const chat = await conversationWith(first, said('USER', 'Gradle daemon keeps dying'));
    await first.close();
    const index = path.join(dataDir, 'db.json.search');
    const text = (await readFile(index)).toString('latin1');
    await writeFile(
      index,
      Buffer.from(
        text.replace(/"top":(\d+)/, (_, top) => `"top":${Number(top) + 1}`),
        'latin1',
      ),
    );
    const second = await open(dataDir);
    expect(await found(second, 'gradle daemon')).toEqual([chat.messages.iterable[0]!.id]);
    await second.close();

    // A folder where the file should be: the store opens, builds the index, and says it cannot save it.
    await rm(index);
    await mkdir(index);
    const warnings: string[] = [];
    const third = await open(dataDir, warnings);
    expect(await found(third, 'gradle daemon')).toEqual([chat.messages.iterable[0]!.id]);
    await third.close();
    expect(warnings.some((warning) => warning.includes('search index'))).toBe(true);
  });

  it('is built again when it is older than the snapshot (a crash between two compactions)', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    await conversationWith(first, said('USER', 'Terraform state lock'));
    await first.close();
    const old = await readFile(path.join(dataDir, 'db.json.search'));

    const second = await open(dataDir);
    const later = await conversationWith(second, said('USER', 'Helm chart values override'));
    await second.close();
    await writeFile(path.join(dataDir, 'db.json.search'), old);

    const third = await open(dataDir);
    expect(await found(third, 'helm values')).toEqual([later.messages.iterable[0]!.id]);
    await third.close();
  });

  it('is kept by no store told not to keep one; the service still searches, from an index it builds itself', async () => {
    const dataDir = await tempDir();
    const repository = await createJsonFileRepository({ file: path.join(dataDir, 'db.json'), searchIndex: false, logger: quiet });
    expect(repository.search).toBeUndefined();
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    const before = await conversationWith(service, said('USER', 'Rust borrow checker complains'));
    expect(await found(service, 'borrow checker')).toEqual([before.messages.iterable[0]!.id]);
    // Written after the first search: the service's own index follows its transactions.
    const after = await conversationWith(service, said('USER', 'Rust lifetimes in structs'));
    expect(await found(service, 'lifetimes')).toEqual([after.messages.iterable[0]!.id]);
    await service.close();
    await expect(stat(path.join(dataDir, 'db.json.search'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
