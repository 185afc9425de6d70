/**
 * Where downloads may connect. With `privateAddresses: 'refuse'` a download reaches neither this
 * machine nor its private network: IP literals are refused before connecting, host names on every
 * address they resolve to, and every redirect hop is checked again; `allowedHosts` lets one through.
 * The example server and the command refuse when they listen off loopback.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceOptionsFrom } from '../../adapters/cli/environment.js';
import { tempDir } from '../helpers/temp-dir.js';
import { downloadEnd, downloadService, modelFrom, startServer, type TestServer } from './download-servers.js';

const FILE = randomBytes(64 * 1024);
const SHA256 = createHash('sha256').update(FILE).digest('hex');
const REFUSAL = '(downloads may not reach this machine or its private network; allow it with allowedHosts)';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A file server on 127.0.0.1: `/files/model.gguf` is FILE, `/redirect` sends there by 127.0.0.1. */
async function fileServer(): Promise<TestServer> {
  let server: TestServer | undefined;
  server = await startServer((request, response) => {
    if (request.url === '/redirect') return response.writeHead(302, { location: `${server!.base}/files/model.gguf` }).end();
    response.writeHead(200, { 'content-length': FILE.length }).end(FILE);
  });
  closers.push(server.close);
  return server;
}

async function setUp(downloads: Parameters<typeof downloadService>[1]) {
  const dataDir = await tempDir();
  const { service } = await downloadService(dataDir, { connectTimeoutMs: 2_000, ...downloads });
  closers.push(() => service.close());
  /** Downloads `url` to its end; answers the last progress and the model's cache folder. */
  const download = async (url: string) => {
    const { model, folder } = await modelFrom(service, dataDir, url);
    await service.downloadModel(model.id);
    return { end: await downloadEnd(service, model.id), folder };
  };
  return { download };
}

describe("privateAddresses: 'refuse'", () => {
  it('refuses a loopback IP literal before connecting, and allows it through allowedHosts', async () => {
    const server = await fileServer();
    const refusing = await setUp({ privateAddresses: 'refuse' });
    expect((await refusing.download(`${server.base}/files/model.gguf`)).end).toEqual({
      status: 'FAILED',
      percentage: 0,
      reason: `refused: 127.0.0.1 is a loopback address ${REFUSAL}`,
    });
    expect(server.requests).toHaveLength(0);

    const allowing = await setUp({ privateAddresses: 'refuse', allowedHosts: ['127.0.0.1'] });
    const { end, folder } = await allowing.download(`${server.base}/files/model.gguf#sha256=${SHA256}`);
    expect(end).toEqual({ status: 'COMPLETED', percentage: 100, bytesReceived: FILE.length, bytesTotal: FILE.length });
    expect(await readFile(path.join(folder, 'model.gguf'))).toEqual(FILE);
  });

  it('refuses a host name on the address it resolves to (localhost → 127.0.0.1), at connect time', async () => {
    const server = await fileServer();
    const { download } = await setUp({ privateAddresses: 'refuse' });
    const { end } = await download(`http://localhost:${server.port}/files/model.gguf`);
    expect(end).toMatchObject({
      status: 'FAILED',
      reason: expect.stringMatching(/^refused: localhost \((127\.0\.0\.1|::1)\) is a loopback address/),
    });
    expect(server.requests).toHaveLength(0);
  });

  it('checks every redirect hop: an allowed host name that redirects to a refused address is refused', async () => {
    const server = await fileServer();
    const refusing = await setUp({ privateAddresses: 'refuse', allowedHosts: ['localhost'] });
    expect((await refusing.download(`http://localhost:${server.port}/redirect`)).end).toMatchObject({
      status: 'FAILED',
      reason: `refused: 127.0.0.1 is a loopback address ${REFUSAL}`,
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/redirect']);

    // With both hops allowed, the same redirect is followed to the file.
    const allowing = await setUp({ privateAddresses: 'refuse', allowedHosts: ['localhost', '127.0.0.1'] });
    const { end, folder } = await allowing.download(`http://localhost:${server.port}/redirect#sha256=${SHA256}`);
    expect(end).toEqual({ status: 'COMPLETED', percentage: 100, bytesReceived: FILE.length, bytesTotal: FILE.length });
    expect(await readFile(path.join(folder, 'redirect'))).toEqual(FILE);
  });

  it.each([
    ['http://[::1]:9/model.gguf', 'refused: ::1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]:9/model.gguf', 'refused: ::ffff:7f00:1 is a loopback address'],
    ['http://10.1.2.3:9/model.gguf', 'refused: 10.1.2.3 is a private address'],
    ['http://192.168.1.1:9/model.gguf', 'refused: 192.168.1.1 is a private address'],
    ['http://100.64.0.1:9/model.gguf', 'refused: 100.64.0.1 is a carrier-grade NAT address'],
    ['http://169.254.169.254:9/latest/meta-data', 'refused: 169.254.169.254 is a link-local address'],
    ['http://[fd12::1]:9/model.gguf', 'refused: fd12::1 is a unique local (private) address'],
    ['http://0.0.0.0:9/model.gguf', 'refused: 0.0.0.0 is an unspecified address'],
  ])('refuses %s', async (url, reason) => {
    const { download } = await setUp({ privateAddresses: 'refuse' });
    expect((await download(url)).end).toMatchObject({ status: 'FAILED', reason: `${reason} ${REFUSAL}` });
  });
});

describe('the example server and the command', () => {
  it('refuse private addresses when HOST is not loopback, and read DOWNLOAD_ALLOWED_HOSTS', () => {
    expect(serviceOptionsFrom({}, 'data').downloads).toEqual({ privateAddresses: 'allow' });
    expect(serviceOptionsFrom({ HOST: 'localhost' }, 'data').downloads).toEqual({ privateAddresses: 'allow' });
    expect(serviceOptionsFrom({ HOST: '0.0.0.0', DOWNLOAD_ALLOWED_HOSTS: 'models.lan, 10.0.0.5' }, 'data').downloads).toEqual({
      privateAddresses: 'refuse',
      allowedHosts: ['models.lan', '10.0.0.5'],
    });
  });
});
