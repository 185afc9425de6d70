/**
 * Model downloads against a real HTTP server on 127.0.0.1 that serves a generated file with
 * `Range` support: progress seen while throttled, a cut download resumed (in the same service and
 * after a restart), a wrong checksum refused, a cancel that removes the partial file, one download
 * for many callers, and the bad inputs answered with clear errors.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, isServiceError, type Service } from '../../src/index.js';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import { seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const FILE = randomBytes(256 * 1024);
const SHA256 = createHash('sha256').update(FILE).digest('hex');

/** How the file server behaves for the next requests. */
interface Behaviour {
  /** Pause between 16 KiB chunks. */
  delayMs: number;
  /** Cut the connection after this many bytes of the next answer (once). */
  cutAfter?: number;
}

async function startFileServer() {
  const behaviour: Behaviour = { delayMs: 0 };
  const ranges: (string | undefined)[] = [];
  const server: Server = createServer(async (request, response) => {
    ranges.push(request.headers.range);
    const start = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    const body = FILE.subarray(start);
    response.writeHead(start > 0 ? 206 : 200, {
      'content-length': body.length,
      ...(start > 0 ? { 'content-range': `bytes ${start}-${FILE.length - 1}/${FILE.length}` } : {}),
    });
    const cut = behaviour.cutAfter;
    behaviour.cutAfter = undefined;
    for (let sent = 0; sent < body.length; sent += 16 * 1024) {
      if (cut !== undefined && sent >= cut) return response.destroy();
      if (response.destroyed) return;
      response.write(body.subarray(sent, sent + 16 * 1024));
      if (behaviour.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/files/tiny-model.gguf`;
  return { url, behaviour, ranges, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(unique?: (url: string) => string) {
  const files = await startFileServer();
  const dataDir = await tempDir();
  // No free-space reserve: these tests are not about the machine's disk (downloads-full-disk is).
  const service = await createService({ dataDir, logger: { warn: () => undefined }, downloads: { minFreeBytes: 0 } });
  cleanups.push(files.close, () => service.close());
  const model = await service.createModel(
    seededModel({
      name: 'Tiny',
      unique: unique ? unique(files.url) : `${files.url}#sha256=${SHA256}`,
      bytes: { value: FILE.length, readable: '256 KB' },
    }),
  );
  return { files, dataDir, service, model, folder: cacheFolderOf(path.join(dataDir, 'models'), model.id) };
}

/** Polls the progress until `done` says so, within 10 s; answers every status seen. */
async function pollUntil(service: Service, id: string, done: (status: string) => boolean) {
  const seen: { status: string; percentage: number | null; reason?: string }[] = [];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const progress = await service.modelDownloadProgress(id);
    seen.push(progress);
    if (done(progress.status)) return seen;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the download of ${id} did not finish: ${JSON.stringify(seen.at(-1))}`);
}

const finished = (status: string) => ['COMPLETED', 'FAILED', 'CANCELED'].includes(status);

describe('downloads', () => {
  it('downloads in the background with progress to poll, checks size and checksum, then counts as downloaded', async () => {
    const { service, model, files, folder } = await setUp();
    files.behaviour.delayMs = 5;
    expect(await service.downloadModel(model.id)).toMatchObject({ downloading: true, downloaded: false });
    const seen = await pollUntil(service, model.id, finished);
    expect(seen.some((p) => p.status === 'IN-PROGRESS' && p.percentage! > 0 && p.percentage! < 100)).toBe(true);
    expect(seen.at(-1)).toEqual({ status: 'COMPLETED', percentage: 100, bytesReceived: FILE.length, bytesTotal: FILE.length });
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
    expect(await service.getModel(model.id)).toMatchObject({ downloaded: true, downloading: false });
    expect((await service.listModels()).iterable.find((m) => m.id === model.id)).toMatchObject({ downloaded: true });
  });

  it('resumes a cut download from its partial file with a Range request', async () => {
    const { service, model, files, folder } = await setUp();
    // Paced, so the bytes before the cut reach the client.
    files.behaviour.delayMs = 2;
    files.behaviour.cutAfter = 128 * 1024;
    await service.downloadModel(model.id);
    expect((await pollUntil(service, model.id, finished)).at(-1)).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^connection lost.*asking again resumes$/),
    });
    expect(await readdir(folder)).toEqual(['tiny-model.gguf.partial']);
    await service.downloadModel(model.id);
    expect((await pollUntil(service, model.id, finished)).at(-1)?.status).toBe('COMPLETED');
    expect(files.ranges.at(-1)).toMatch(/^bytes=\d+-$/);
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('resumes after a restart of the service', async () => {
    const { service, model, files, folder, dataDir } = await setUp();
    files.behaviour.delayMs = 2;
    files.behaviour.cutAfter = 64 * 1024;
    await service.downloadModel(model.id);
    await pollUntil(service, model.id, finished);
    await service.close();
    const again = await createService({ dataDir, logger: { warn: () => undefined }, downloads: { minFreeBytes: 0 } });
    cleanups.push(() => again.close());
    await again.downloadModel(model.id);
    expect((await pollUntil(again, model.id, finished)).at(-1)?.status).toBe('COMPLETED');
    expect(files.ranges.at(-1)).toMatch(/^bytes=\d+-$/);
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('answers a file downloaded before as COMPLETED with its size, without fetching it again (what `models pull` prints)', async () => {
    const { service, model, files, dataDir } = await setUp();
    await service.downloadModel(model.id);
    await pollUntil(service, model.id, finished);
    await service.close();
    const requests = files.ranges.length;
    const again = await createService({ dataDir, logger: { warn: () => undefined }, downloads: { minFreeBytes: 0 } });
    cleanups.push(() => again.close());
    const done = { status: 'COMPLETED', percentage: 100, bytesReceived: FILE.length, bytesTotal: FILE.length };
    expect(await again.modelDownloadProgress(model.id)).toEqual(done);
    await again.downloadModel(model.id);
    expect(await again.modelDownloadProgress(model.id)).toEqual(done);
    expect(files.ranges).toHaveLength(requests);
  });

  it('refuses a file whose checksum is wrong, and keeps nothing of it', async () => {
    const { service, model, folder } = await setUp((url) => `${url}#sha256=${'0'.repeat(64)}`);
    await service.downloadModel(model.id);
    expect((await pollUntil(service, model.id, finished)).at(-1)).toMatchObject({
      status: 'FAILED',
      reason: `checksum mismatch: the file's sha256 is ${SHA256}, not ${'0'.repeat(64)}`,
    });
    expect(await readdir(folder)).toEqual([]);
    expect(await service.getModel(model.id)).toMatchObject({ downloaded: false });
  });

  it('cancels: the partial file goes and the model is not downloading', async () => {
    const { service, model, files, folder } = await setUp();
    files.behaviour.delayMs = 50;
    await service.downloadModel(model.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await service.cancelModelDownload(model.id)).toMatchObject({ downloading: false, downloaded: false });
    expect(await service.modelDownloadProgress(model.id)).toMatchObject({ status: 'CANCELED' });
    expect(await readdir(folder)).toEqual([]);
  });

  it('runs one download for many callers', async () => {
    const { service, model, files } = await setUp();
    files.behaviour.delayMs = 5;
    await Promise.all(Array.from({ length: 5 }, () => service.downloadModel(model.id)));
    await pollUntil(service, model.id, finished);
    expect(files.ranges).toHaveLength(1);
  });

  it('stops the download when the model is deleted', async () => {
    const { service, model, files, folder } = await setUp();
    files.behaviour.delayMs = 50;
    await service.downloadModel(model.id);
    await service.deleteModel(model.id);
    expect(await readdir(folder).catch(() => 'no folder')).toBe('no folder');
  });
});

describe('refusals', () => {
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: unknown) => (isServiceError(error) ? error.code : String(error)),
    );

  it('answers clear errors for a model without a source, a malformed source, no data folder, an unknown model', async () => {
    const { service } = await setUp();
    const noSource = await service.createModel(seededModel({ name: 'No source', unique: 'llama3.2:latest' }));
    const noFile = await service.createModel(seededModel({ name: 'No file', unique: 'https://example.com/' }));
    expect(await codeOf(service.downloadModel(noSource.id))).toBe('UNPROCESSABLE');
    expect(await codeOf(service.downloadModel(noFile.id))).toBe('INVALID_INPUT');
    expect(await codeOf(service.downloadModel('no-such-model'))).toBe('NOT_FOUND');
    const inMemory = await createService();
    const model = await inMemory.createModel(seededModel({ unique: 'https://example.com/model.gguf' }));
    expect(await codeOf(inMemory.downloadModel(model.id))).toBe('UNPROCESSABLE');
  });

  it('loads only what something can run; loading twice is not an error', async () => {
    const { service, model } = await setUp();
    expect(await codeOf(service.loadModel(model.id))).toBe('UNPROCESSABLE');
    const builtin = (await service.listModels()).iterable[0]!;
    expect(await service.loadModel(builtin.id)).toMatchObject({ loaded: true });
    expect(await service.loadModel(builtin.id)).toMatchObject({ loaded: true });
    expect(await service.unloadModel(builtin.id)).toMatchObject({ loaded: false });
  });

  it('updates a custom model and refuses to update a built-in one', async () => {
    const { service, model } = await setUp();
    expect(await service.updateModel({ id: model.id, name: 'Renamed', description: 'A tiny test model' })).toMatchObject({
      name: 'Renamed',
      description: 'A tiny test model',
      custom: true,
    });
    expect((await service.getModel(model.id)).name).toBe('Renamed');
    const builtin = (await service.listModels()).iterable[0]!;
    expect(await codeOf(service.updateModel({ id: builtin.id, name: 'Mine now' }))).toBe('FORBIDDEN');
    expect(await codeOf(service.updateModel({ id: model.id, cloud: 'yes' as never }))).toBe('INVALID_INPUT');
  });
});
