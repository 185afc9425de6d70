/**
 * A failed download as clients see it, over a real HTTP server on 127.0.0.1: the official client
 * (`@pieces.app/pieces-os-client`, unmodified) still parses the progress answer that carries the
 * extra `reason`, and `models pull` prints the reason and exits non-zero; into a pipe it prints
 * plain lines (with the bytes received of the total) instead of a bar redrawn in place.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Configuration, ModelApi } from '@pieces.app/pieces-os-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../adapters/hono/serve.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downloadService, modelFrom, sleep, startServer } from './download-servers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const FILE = randomBytes(256 * 1024);
const CHUNK = 16 * 1024;

const closers: (() => Promise<void>)[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  // Each CLI runs in a process group of its own (tsx starts a node process), killed whole.
  for (const child of children.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has exited already.
    }
  }
  for (const close of closers.splice(0).reverse()) await close();
});

/** The API over HTTP on 127.0.0.1, and a file server: `/missing/…` is 404, anything else FILE, paced over about 1.6 s. */
async function setUp() {
  const files = await startServer(async (request, response) => {
    if (request.url?.startsWith('/missing/')) return response.writeHead(404).end();
    response.writeHead(200, { 'content-length': FILE.length });
    for (let sent = 0; sent < FILE.length && !response.destroyed; sent += CHUNK) {
      response.write(FILE.subarray(sent, sent + CHUNK));
      await sleep(100);
    }
    response.end();
  });
  closers.push(files.close);
  const dataDir = await tempDir();
  const { service } = await downloadService(dataDir);
  closers.push(() => service.close());
  const api = await startHttpServer(service, { port: 0, host: '127.0.0.1', keepAliveTimeoutMs: 500, shutdownGraceMs: 1_000 });
  closers.push(api.close);
  return { files, service, dataDir, api };
}

/** Runs `models pull <id>` against `url` with stdout and stderr piped (not a terminal), to its end (bounded). */
function pull(id: string, url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['adapters/cli/main.ts', 'models', 'pull', id, '--url', url], {
      cwd: ROOT,
      env: { ...process.env, API_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => reject(new Error(`models pull did not end within 30 s:\n${stdout}\n${stderr}`)), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a failed download, as clients see it', () => {
  it('the official client parses a FAILED progress that carries a reason', async () => {
    const { files, service, dataDir, api } = await setUp();
    const { model } = await modelFrom(service, dataDir, `${files.base}/missing/model.gguf`);
    const client = new ModelApi(new Configuration({ basePath: api.url }));
    await client.modelSpecificModelDownload({ model: model.id });
    let progress = await client.modelSpecificModelDownloadProgress({ model: model.id });
    for (let i = 0; i < 200 && progress.status !== 'FAILED'; i++) {
      await sleep(25);
      progress = await client.modelSpecificModelDownloadProgress({ model: model.id });
    }
    expect(progress).toMatchObject({ status: 'FAILED', percentage: 0 });
    const raw = await client.modelSpecificModelDownloadProgressRaw({ model: model.id });
    expect(await raw.raw.json()).toEqual({ status: 'FAILED', percentage: 0, reason: 'server answered 404 Not Found' });
  });

  it('models pull prints FAILED: <reason> on stderr and exits 1', async () => {
    const { files, service, dataDir, api } = await setUp();
    const { model } = await modelFrom(service, dataDir, `${files.base}/missing/model.gguf`);
    const { code, stdout, stderr } = await pull(model.id, api.url);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('FAILED: server answered 404 Not Found');
    expect(stdout).not.toContain('\r');
  });

  it('models pull into a pipe prints plain lines, one per status and tenth of the way, with the bytes, then a success line', async () => {
    const { files, service, dataDir, api } = await setUp();
    const { model } = await modelFrom(service, dataDir, `${files.base}/files/model.gguf`, FILE.length);
    const { code, stdout, stderr } = await pull(model.id, api.url);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // No carriage returns, no escapes: a log or a pipe gets lines.
    expect(stdout).not.toMatch(/[\r\x1b]/);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`pulled ${model.id} (256 KiB)`);
    const progress = lines.slice(0, -1);
    expect(progress.at(-1)).toBe('COMPLETED 100%  256 KiB / 256 KiB');
    // The progress answer's bytesReceived and bytesTotal, as the command shows them.
    for (const line of progress)
      expect(line).toMatch(
        /^(INITIALIZED \d{1,3}%|IN-PROGRESS \d{1,3}% {2}[\d.]+ (B|KiB) \/ 256 KiB|COMPLETED 100% {2}256 KiB \/ 256 KiB)$/,
      );
    expect(progress.some((line) => line.startsWith('IN-PROGRESS'))).toBe(true);
    const tenths = progress.map((line) => `${line.split(' ')[0]} ${Math.floor(Number(/ (\d+)%/.exec(line)![1]) / 10)}`);
    expect(new Set(tenths).size).toBe(tenths.length);
  });
});
