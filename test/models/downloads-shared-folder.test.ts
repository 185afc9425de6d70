/**
 * Model downloads into one cache folder shared by several instances of the service (instances on
 * one database sharing a `DATA_DIR`): two pulling the same model at once both end with the whole
 * file and no torn file is ever visible under its name; one that finds the file finished downloads
 * nothing; a partial file whose writer died is resumed by another instance, and one another
 * instance is writing is never taken or removed. Each instance here is a service of its own on one
 * store and one data folder, as two processes would be (see src/models/partial-claims.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createService, type Service } from '../../src/index.js';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import { createMemoryRepository } from '../../src/stores/memory.js';
import { seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downloadEnd, sleep, startServer, type TestServer } from './download-servers.js';

const FILE = randomBytes(256 * 1024);
const SHA256 = createHash('sha256').update(FILE).digest('hex');
const CHUNK = 16 * 1024;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves FILE with `Range` support, 16 KiB every 2 ms (about 40 ms a download); records each request's `Range`. */
async function fileServer(): Promise<TestServer & { ranges: (string | undefined)[] }> {
  const ranges: (string | undefined)[] = [];
  const server = await startServer(async (request, response) => {
    ranges.push(request.headers.range);
    const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    response.writeHead(start > 0 ? 206 : 200, {
      'content-length': FILE.length - start,
      ...(start > 0 ? { 'content-range': `bytes ${start}-${FILE.length - 1}/${FILE.length}` } : {}),
    });
    for (let sent = start; sent < FILE.length && !response.destroyed; sent += CHUNK) {
      response.write(FILE.subarray(sent, Math.min(FILE.length, sent + CHUNK)));
      await sleep(2);
    }
    response.end();
  });
  closers.push(() => server.close());
  return { ...server, ranges };
}

/** Two services on one store and one data folder, and a model whose file `server` serves. */
async function twoInstances(server: TestServer) {
  const dataDir = await tempDir();
  const repository = createMemoryRepository();
  const open = async (): Promise<Service> => {
    const service = await createService({ repository, dataDir, logger: { warn: () => undefined }, downloads: { minFreeBytes: 0 } });
    closers.push(() => service.close());
    return service;
  };
  const [a, b] = [await open(), await open()];
  const model = await a.createModel(
    seededModel({
      name: 'Shared',
      unique: `${server.base}/files/tiny-model.gguf#sha256=${SHA256}`,
      bytes: { value: FILE.length, readable: '256 KB' },
    }),
  );
  return { a, b, model, folder: cacheFolderOf(path.join(dataDir, 'models'), model.id) };
}

/** A partial file's name as a writer on this host with process id `pid` gives it (src/models/partial-claims.ts). */
const writersPartial = (pid: number, token: string) =>
  `tiny-model.gguf.${createHash('sha256').update(hostname()).digest('hex').slice(0, 8)}-${pid}-${token}.partial`;

it('two instances pulling one model into one folder at once both end with the whole file, never visible torn', async () => {
  const server = await fileServer();
  const { a, b, model, folder } = await twoInstances(server);
  await Promise.all([a.downloadModel(model.id), b.downloadModel(model.id)]);
  // Whenever the file is there under its name, it is whole.
  const looks: number[] = [];
  const watch = async () => {
    if (!(await readdir(folder).catch(() => [] as string[])).includes('tiny-model.gguf')) return;
    const seen = await readFile(path.join(folder, 'tiny-model.gguf'));
    looks.push(seen.length);
    expect(seen.equals(FILE)).toBe(true);
  };
  const ends = await Promise.all([downloadEnd(a, model.id, 10_000, watch), downloadEnd(b, model.id, 10_000, watch)]);
  expect(ends.map((end) => end.status)).toEqual(['COMPLETED', 'COMPLETED']);
  expect(looks.length).toBeGreaterThan(0);
  expect(await readdir(folder)).toEqual(['tiny-model.gguf']);
  expect((await readFile(path.join(folder, 'tiny-model.gguf'))).equals(FILE)).toBe(true);
  // Asked again, on either: the finished file is found, nothing is downloaded.
  const requests = server.requests.length;
  expect(await b.downloadModel(model.id)).toMatchObject({ downloaded: true, downloading: false });
  expect(await a.downloadModel(model.id)).toMatchObject({ downloaded: true, downloading: false });
  expect(server.requests).toHaveLength(requests);
});

it('resumes the partial file of a writer that died, and never takes or removes one another instance is writing', async () => {
  const server = await fileServer();
  const { a, model, folder } = await twoInstances(server);
  await mkdir(folder, { recursive: true });
  // A process id above Linux's largest (2^22): no process has it, as after a SIGKILL.
  const dead = writersPartial(2 ** 22 + 1, 'deadbeef');
  await writeFile(path.join(folder, dead), FILE.subarray(0, 40_000));
  // This process runs, and the file just changed: a download under way in another instance.
  const live = writersPartial(process.pid, 'cafe0001');
  await writeFile(path.join(folder, live), 'being written');
  await a.downloadModel(model.id);
  expect(await downloadEnd(a, model.id)).toMatchObject({ status: 'COMPLETED' });
  expect(server.ranges).toEqual(['bytes=40000-']);
  expect((await readFile(path.join(folder, 'tiny-model.gguf'))).equals(FILE)).toBe(true);
  expect((await readdir(folder)).sort()).toEqual(['tiny-model.gguf', live].sort());
  // A cancel removes the partial files no one writes, not that one.
  await writeFile(path.join(folder, 'tiny-model.gguf.partial'), 'parked');
  await a.cancelModelDownload(model.id);
  expect((await readdir(folder)).sort()).toEqual(['tiny-model.gguf', live].sort());
  expect(await readFile(path.join(folder, live), 'utf8')).toBe('being written');
});
