/**
 * What the download tests share: real node:http servers on 127.0.0.1 that misbehave on purpose, a
 * service on a temp data folder, and a bounded poll of a download's progress.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { createService, type DownloadOptions, type Service } from '../../src/index.js';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import { seededModel } from '../helpers/service.js';

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly port: number;
  /** Every request received: its path and headers. */
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that answers with `handler`. */
export async function startServer(handler: (request: IncomingMessage, response: ServerResponse) => unknown): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    void handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Writes `chunk` again and again until the client goes away or `maxBytes` went (a bound, so a test
 * that goes wrong still ends), waiting for the socket to drain. Answers the bytes written.
 */
export async function writeEndlessly(response: ServerResponse, chunk: Buffer, maxBytes: number): Promise<number> {
  let sent = 0;
  while (sent < maxBytes && !response.destroyed) {
    sent += chunk.length;
    if (!response.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (!response.destroyed) response.end();
  return sent;
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A service on `dataDir` whose warnings are collected in `warnings`. */
export async function downloadService(dataDir: string, downloads: DownloadOptions = {}) {
  const warnings: string[] = [];
  // No reserve unless a test asks: the machine's free space is not what these tests are about.
  const service = await createService({
    dataDir,
    logger: { warn: (message) => warnings.push(message) },
    downloads: { minFreeBytes: 0, ...downloads },
  });
  return { service, warnings };
}

/** A custom model whose file is `url`; answers it and its cache folder. */
export async function modelFrom(service: Service, dataDir: string, url: string, bytes?: number) {
  const model = await service.createModel(
    seededModel({ name: `From ${url}`, unique: url, ...(bytes !== undefined ? { bytes: { value: bytes, readable: `${bytes} B` } } : {}) }),
  );
  return { model, folder: cacheFolderOf(path.join(dataDir, 'models'), model.id) };
}

export type Progress = { status: string; percentage: number | null; reason?: string };

/**
 * Polls the download's progress until it ends (COMPLETED, FAILED, CANCELED), at most `withinMs`;
 * calls `each` after every poll (to watch the partial file, say). Answers the last progress.
 */
export async function downloadEnd(service: Service, id: string, withinMs = 10_000, each?: () => Promise<void>): Promise<Progress> {
  const deadline = Date.now() + withinMs;
  let last: Progress | undefined;
  while (Date.now() < deadline) {
    last = await service.modelDownloadProgress(id);
    await each?.();
    if (['COMPLETED', 'FAILED', 'CANCELED'].includes(last.status)) return last;
    await sleep(10);
  }
  throw new Error(`the download of ${id} did not end within ${withinMs} ms: ${JSON.stringify(last)}`);
}
