/**
 * Downloads against servers that misbehave, each a real node:http server on 127.0.0.1: an endless
 * body, a size over the declared one, a gzip answer, a `Range` ignored or answered with the wrong
 * bytes, a drip, a server that never answers, and a partial file or cache folder replaced by a
 * link. Each fails with its reason (in the progress answer, in `failure()`, logged once), keeps
 * nothing wrong on disk, or ends with exactly the right file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createDownloads, downloadSourceOf } from '../../src/models/downloads.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downloadEnd, downloadService, modelFrom, sleep, startServer, type TestServer, writeEndlessly } from './download-servers.js';

const FILE = randomBytes(256 * 1024);
const SHA256 = createHash('sha256').update(FILE).digest('hex');
const CHUNK = 16 * 1024;
const MiB = 1024 * 1024;

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const server of servers.splice(0)) await server.close();
});

async function setUp(downloads: Parameters<typeof downloadService>[1] = {}) {
  const dataDir = await tempDir();
  const { service, warnings } = await downloadService(dataDir, downloads);
  closers.push(() => service.close());
  return { dataDir, service, warnings };
}

async function serve(handler: Parameters<typeof startServer>[0]) {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

/** What a file server sends for one request: from which byte of FILE, with which status and Content-Range, cut after how many bytes. */
interface Answer {
  status: number;
  start: number;
  contentRange?: string;
  cutAfter?: number;
}

/** Serves FILE in 16 KiB chunks, 2 ms apart; `answer` decides per request (the `Range` start asked, the request's index). */
function fileServer(answer: (from: number | undefined, index: number) => Answer) {
  let index = 0;
  return serve(async (request, response) => {
    const asked = /^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1];
    const plan = answer(asked === undefined ? undefined : Number(asked), index++);
    const body = FILE.subarray(plan.start);
    response.writeHead(plan.status, {
      'content-length': body.length,
      ...(plan.contentRange ? { 'content-range': plan.contentRange } : {}),
    });
    for (let sent = 0; sent < body.length && !response.destroyed; sent += CHUNK) {
      if (plan.cutAfter !== undefined && sent >= plan.cutAfter) return response.destroy();
      response.write(body.subarray(sent, sent + CHUNK));
      await sleep(2);
    }
    response.end();
  });
}

const whole = (): Answer => ({ status: 200, start: 0 });
const cutHalfway = (): Answer => ({ status: 200, start: 0, cutAfter: 128 * 1024 });
const fileUrl = (server: TestServer) => `${server.base}/files/tiny-model.gguf#sha256=${SHA256}`;

describe('the declared size and Content-Length', () => {
  it('stops an endless body at the first byte past the declared 1,024 bytes, and keeps no file', async () => {
    const { service, dataDir } = await setUp();
    let sent: Promise<number> | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200);
      sent = writeEndlessly(response, Buffer.alloc(CHUNK, 1), 256 * MiB);
    });
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/endless.gguf`, 1024);
    await service.downloadModel(model.id);
    let largest = 0;
    const watch = async () => {
      // A file listed may be gone by the time it is measured: the service removes the partial file when it refuses the body.
      for (const name of await readdir(folder).catch(() => [])) {
        largest = Math.max(largest, (await stat(path.join(folder, name)).catch(() => undefined))?.size ?? 0);
      }
    };
    const end = await downloadEnd(service, model.id, 10_000, watch);
    expect(end).toMatchObject({ status: 'FAILED', reason: expect.stringMatching(/^size over the declared 1,024 bytes/) });
    expect(largest).toBeLessThanOrEqual(1024);
    expect(await readdir(folder)).toEqual([]);
    // The service stopped reading; it did not drain the (bounded) endless body.
    expect(await sent).toBeLessThan(256 * MiB);
  });

  it('refuses a Content-Length over the declared size from the headers, before reading the body', async () => {
    const { service, dataDir } = await setUp();
    const server = await serve((_request, response) => {
      // The headers, then nothing: only a check of the headers can end this download.
      response.writeHead(200, { 'content-length': 4 * MiB });
      response.flushHeaders();
    });
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/big.gguf`, 1024);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toEqual({
      status: 'FAILED',
      percentage: 0,
      reason: 'size over the declared 1,024 bytes: the server announces 4,194,304 bytes',
    });
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('no content decoding', () => {
  it('asks for identity and refuses a gzip answer (50 MiB of zeros in 50 KB), writing nothing', async () => {
    const { service, dataDir } = await setUp();
    const gzipped = gzipSync(Buffer.alloc(50 * MiB));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': gzipped.length });
      response.end(gzipped);
    });
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/zeros.gguf`);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^encoded answer: .*gzip/),
    });
    expect(server.requests[0]?.headers['accept-encoding']).toBe('identity');
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('resuming', () => {
  it('starts over from byte 0 when the server answers a Range request with the whole file (200)', async () => {
    const { service, dataDir } = await setUp();
    const server = await fileServer((_from, index) => (index === 0 ? cutHalfway() : whole()));
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toMatchObject({ status: 'FAILED', reason: expect.stringMatching(/^connection lost/) });
    expect(await readdir(folder)).toEqual(['tiny-model.gguf.partial']);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toEqual({
      status: 'COMPLETED',
      percentage: 100,
      bytesReceived: FILE.length,
      bytesTotal: FILE.length,
    });
    expect(server.requests[1]?.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('starts over once without Range when a 206 does not start where the partial file ends', async () => {
    const { service, dataDir } = await setUp();
    const server = await fileServer((from, index) => {
      if (index === 0) return cutHalfway();
      if (from === undefined) return whole();
      const start = from + 100;
      return { status: 206, start, contentRange: `bytes ${start}-${FILE.length - 1}/${FILE.length}` };
    });
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    await service.downloadModel(model.id);
    await downloadEnd(service, model.id);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toEqual({
      status: 'COMPLETED',
      percentage: 100,
      bytesReceived: FILE.length,
      bytesTotal: FILE.length,
    });
    expect(server.requests.map((r) => r.headers.range)).toEqual([undefined, expect.stringMatching(/^bytes=\d+-$/), undefined]);
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('fails with resume mismatch when the answer without Range is wrong too, and removes the partial file', async () => {
    const { service, dataDir } = await setUp();
    const server = await fileServer(() => ({ status: 206, start: 100, contentRange: `bytes 100-${FILE.length - 1}/${FILE.length}` }));
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'tiny-model.gguf.partial'), FILE.subarray(0, 1000));
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toMatchObject({
      status: 'FAILED',
      reason: `resume mismatch: asked for the file from byte 0, the server sent Content-Range: bytes 100-${FILE.length - 1}/${FILE.length}`,
    });
    expect(server.requests.map((r) => r.headers.range)).toEqual(['bytes=1000-', undefined]);
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('deadlines', () => {
  it('fails a drip of 1 byte every 200 ms as stalled (stallBytes 64 in stallTimeoutMs 1 s), keeping its bytes to resume', async () => {
    const { service, dataDir } = await setUp({ stallTimeoutMs: 1_000, stallBytes: 64 });
    const server = await serve(async (_request, response) => {
      response.writeHead(200, { 'content-length': 1024 });
      // At most 100 bytes (20 s): the test ends even if the download never gives up.
      for (let i = 0; i < 100 && !response.destroyed; i++) {
        response.write(Buffer.from([i]));
        await sleep(200);
      }
      response.destroy();
    });
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/drip.gguf`);
    await service.downloadModel(model.id);
    const end = await downloadEnd(service, model.id, 10_000);
    expect(end).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^stalled: \d+ bytes? in the last 1 s \(fewer than 64 bytes\)$/),
    });
    expect(await readdir(folder)).toEqual(['drip.gguf.partial']);
  });

  it('does not take a slow but steady download for a stall: the deadline is on progress, not on the total time', async () => {
    const { service, dataDir } = await setUp({ stallTimeoutMs: 300, stallBytes: 64 });
    // The stall windows (the watchdog's setInterval) pass when the test moves their clock: one
    // 16 KiB chunk arrives in each, and 16 windows make the download last 16 stall deadlines.
    // (With real time, a busy machine pausing this process for a window would fail it.)
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    onTestFinished(() => void vi.useRealTimers());
    let nextChunk: (() => void) | undefined;
    const server = await serve(async (_request, response) => {
      response.writeHead(200, { 'content-length': FILE.length });
      for (let sent = 0; sent < FILE.length && !response.destroyed; sent += CHUNK) {
        response.write(FILE.subarray(sent, sent + CHUNK));
        await new Promise<void>((resolve) => (nextChunk = resolve));
      }
      response.end();
    });
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    await service.downloadModel(model.id);
    /** Whether the download has the first `bytes` of the file (the last chunk completes it). */
    const has = async (bytes: number) => {
      const progress = await service.modelDownloadProgress(model.id);
      return (
        progress.status === 'COMPLETED' || (progress.status === 'IN-PROGRESS' && (progress.percentage ?? 0) >= (100 * bytes) / FILE.length)
      );
    };
    for (let received = CHUNK; received <= FILE.length; received += CHUNK) {
      // Polled in real time, at most 10 s: the chunk arrived, so in this window.
      for (let i = 0; i < 1_000 && !(await has(received)); i++) await sleep(10);
      expect(await has(received), `${received} bytes: ${JSON.stringify(await service.modelDownloadProgress(model.id))}`).toBe(true);
      vi.advanceTimersByTime(300);
      nextChunk!();
    }
    expect(await downloadEnd(service, model.id)).toEqual({
      status: 'COMPLETED',
      percentage: 100,
      bytesReceived: FILE.length,
      bytesTotal: FILE.length,
    });
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('refuses, when the service is created, deadlines and sizes that cannot work', async () => {
    const dataDir = await tempDir();
    await expect(downloadService(dataDir, { stallTimeoutMs: 0 })).rejects.toThrow(
      'downloads.stallTimeoutMs must be a number of milliseconds > 0.',
    );
    await expect(downloadService(dataDir, { minFreeBytes: -1 })).rejects.toThrow('downloads.minFreeBytes must be a whole number ≥ 0.');
    await expect(downloadService(dataDir, { privateAddresses: 'deny' as 'refuse' })).rejects.toThrow(
      `downloads.privateAddresses must be 'allow' or 'refuse', not "deny".`,
    );
  });

  it('fails with connect timeout when the server accepts and never answers', async () => {
    const { service, dataDir } = await setUp({ connectTimeoutMs: 300 });
    const server = await serve(() => undefined);
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/silent.gguf`);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toMatchObject({
      status: 'FAILED',
      reason: `connect timeout: no answer from 127.0.0.1:${server.port} within 0.3 s`,
    });
    expect(await readdir(folder)).toEqual([]);
  });
});

describe('redirects', () => {
  it('follows at most 5, and never to another scheme than http(s)', async () => {
    const { service, dataDir } = await setUp();
    const server = await serve((request, response) => {
      if (request.url === '/to-file') return response.writeHead(302, { location: 'file:///etc/passwd' }).end();
      response.writeHead(302, { location: '/loop' }).end();
    });
    const loop = await modelFrom(service, dataDir, `${server.base}/loop`);
    await service.downloadModel(loop.model.id);
    expect(await downloadEnd(service, loop.model.id)).toMatchObject({
      status: 'FAILED',
      reason: 'server answered 302: more than 5 redirects',
    });
    expect(server.requests).toHaveLength(6);
    const toFile = await modelFrom(service, dataDir, `${server.base}/to-file`);
    await service.downloadModel(toFile.model.id);
    expect(await downloadEnd(service, toFile.model.id)).toMatchObject({
      status: 'FAILED',
      reason: 'refused: a redirect to file: (downloads follow http and https only)',
    });
  });
});

describe('links planted in the cache folder', () => {
  it('never writes through a <file>.partial link: the target outside is unchanged and the download ends right', async () => {
    const { service, dataDir } = await setUp();
    const server = await fileServer(whole);
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    const outside = path.join(await tempDir(), 'precious.txt');
    await writeFile(outside, 'not yours');
    await mkdir(folder, { recursive: true });
    await symlink(outside, path.join(folder, 'tiny-model.gguf.partial'));
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toEqual({
      status: 'COMPLETED',
      percentage: 100,
      bytesReceived: FILE.length,
      bytesTotal: FILE.length,
    });
    expect(await readFile(outside, 'utf8')).toBe('not yours');
    expect(await readdir(folder)).toEqual(['tiny-model.gguf']);
    expect(await readFile(path.join(folder, 'tiny-model.gguf'))).toEqual(FILE);
  });

  it('refuses a cache folder that is a link, and writes nothing where it points', async () => {
    const { service, dataDir } = await setUp();
    const server = await fileServer(whole);
    const { model, folder } = await modelFrom(service, dataDir, fileUrl(server), FILE.length);
    const outside = await tempDir();
    await writeFile(path.join(outside, 'tiny-model.gguf.partial'), 'not yours');
    await mkdir(path.dirname(folder), { recursive: true });
    await symlink(outside, folder);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^refused: the cache folder .* is a link or a file, not a folder/),
    });
    expect(server.requests).toHaveLength(0);
    // A cancel removes partial files, but never through the link.
    await service.cancelModelDownload(model.id);
    expect((await lstat(folder)).isSymbolicLink()).toBe(true);
    expect(await readdir(outside)).toEqual(['tiny-model.gguf.partial']);
    expect(await readFile(path.join(outside, 'tiny-model.gguf.partial'), 'utf8')).toBe('not yours');
  });
});

describe('the reason of a failure', () => {
  it('is in the progress answer and the model answer, logged once, and kept by failure() until a new download starts', async () => {
    const { service, dataDir, warnings } = await setUp();
    const server = await serve((request, response) => {
      if (request.url?.startsWith('/missing')) return response.writeHead(404).end('no such file');
      response.writeHead(200, { 'content-length': FILE.length }).end(FILE);
    });
    const { model } = await modelFrom(service, dataDir, `${server.base}/missing/tiny.gguf`);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id)).toEqual({ status: 'FAILED', percentage: 0, reason: 'server answered 404 Not Found' });
    expect(await service.modelDownloadProgress(model.id)).toMatchObject({ reason: 'server answered 404 Not Found' });
    expect(warnings).toEqual([`The download of model "${model.id}" failed: server answered 404 Not Found`]);
    expect((await service.getModel(model.id)).downloadFailure).toEqual({ reason: 'server answered 404 Not Found', at: expect.any(String) });
    expect((await service.listModels()).iterable.find((listed) => listed.id === model.id)?.downloadFailure?.reason).toBe(
      'server answered 404 Not Found',
    );

    const cacheRoot = await tempDir();
    const downloads = createDownloads({
      cacheRoot,
      logger: { warn: () => undefined },
      now: () => new Date('2026-02-03T04:05:06.000Z'),
      minFreeBytes: 0,
    });
    closers.push(() => downloads.close());
    await downloads.start('m', downloadSourceOf(`${server.base}/missing/tiny.gguf`)!);
    await downloads.settled('m');
    expect(downloads.failure('m')).toEqual({ reason: 'server answered 404 Not Found', at: '2026-02-03T04:05:06.000Z' });
    await downloads.start('m', downloadSourceOf(`${server.base}/files/tiny.gguf`)!);
    expect(downloads.failure('m')).toBeUndefined();
    await downloads.settled('m');
    expect(downloads.state('m')).toEqual({ status: 'COMPLETED', percentage: 100 });
    await downloads.start('n', downloadSourceOf(`${server.base}/missing/other.gguf`)!);
    await downloads.settled('n');
    await downloads.cancel('n');
    expect(downloads.failure('n')).toBeUndefined();
  });
});
