/**
 * Downloads on a real small disk (a 64 MiB tmpfs): a model that cannot fit while leaving
 * `minFreeBytes` free is refused before anything is written; a download with no declared size stops
 * at the reserve, or at the disk's end (ENOSPC), removes its partial file, and the service's
 * conversation writes on the same disk still succeed. Needs root to mount a tmpfs; elsewhere the
 * tests are skipped, saying so.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/index.js';
import { freeBytes } from '../../src/models/free-space.js';
import { mountTmpfs, needs } from '../helpers/requirements.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downloadEnd, downloadService, modelFrom, startServer, type TestServer, writeEndlessly } from './download-servers.js';

const MiB = 1024 * 1024;
const mountPoint = path.join(await tempDir('cms-download-disk-'), 'disk');
await mkdir(mountPoint);
const cannotMount = mountTmpfs(mountPoint, '64m');
afterAll(() => {
  if (cannotMount === undefined) execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server whose answer never ends (no Content-Length), in 1 MiB chunks, bounded at 256 MiB: four times the disk. */
async function endlessServer(): Promise<TestServer> {
  const server = await startServer((_request, response) => {
    response.writeHead(200);
    void writeEndlessly(response, Buffer.alloc(MiB, 7), 256 * MiB);
  });
  closers.push(server.close);
  return server;
}

async function serviceOnDisk(name: string, minFreeBytes: number) {
  const dataDir = path.join(mountPoint, name);
  const { service } = await downloadService(dataDir, { minFreeBytes });
  closers.push(() => service.close());
  return { dataDir, service };
}

describe('downloads on a real small disk (a 64 MiB tmpfs)', needs(cannotMount), () => {
  it('refuses at once, with INSUFFICIENT_STORAGE, a model whose declared size does not fit above minFreeBytes', async () => {
    const server = await endlessServer();
    const { dataDir, service } = await serviceOnDisk('refused', 16 * MiB);
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/big.gguf`, 60 * MiB);
    const error = await service.downloadModel(model.id).catch((caught: unknown) => caught);
    expect(isServiceError(error) && error.code).toBe('INSUFFICIENT_STORAGE');
    expect((error as Error).message).toMatch(
      /^Not enough disk space to download model ".*": the file needs 60 MiB more; the disk has [\d.]+ MiB free, and downloads leave 16 MiB free \(minFreeBytes\)\.$/,
    );
    expect(server.requests).toHaveLength(0);
    expect(await readdir(folder).catch(() => [])).toEqual([]);
    expect(await service.modelDownloadProgress(model.id)).toEqual({ status: 'UNKNOWN', percentage: null });
  });

  it('stops a download of unknown size at the minFreeBytes reserve, removes its partial file, and conversations still write', async () => {
    const server = await endlessServer();
    const { dataDir, service } = await serviceOnDisk('reserve', 16 * MiB);
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/endless.gguf`);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id, 20_000)).toMatchObject({ status: 'FAILED', reason: expect.stringMatching(/^disk full: /) });
    expect(await readdir(folder)).toEqual([]);
    expect(await freeBytes(mountPoint)).toBeGreaterThan(48 * MiB);
    const conversation = await service.createConversation({ type: 'COPILOT', name: 'written after the download failed' });
    expect((await service.getConversation(conversation.id)).name).toBe('written after the download failed');
  });

  it('without a reserve, fails at the end of the disk (ENOSPC) as disk full, removes its partial file, and conversations still write', async () => {
    const server = await endlessServer();
    const { dataDir, service } = await serviceOnDisk('enospc', 0);
    const { model, folder } = await modelFrom(service, dataDir, `${server.base}/endless.gguf`);
    await service.downloadModel(model.id);
    expect(await downloadEnd(service, model.id, 20_000)).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^disk full: .*(ENOSPC|no space left)/i),
    });
    expect(await readdir(folder)).toEqual([]);
    const conversation = await service.createConversation({ type: 'COPILOT', name: 'written after the disk filled' });
    expect((await service.getConversation(conversation.id)).name).toBe('written after the disk filled');
  });
});
