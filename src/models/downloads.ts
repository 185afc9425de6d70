import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { cacheFolderOf } from './cache-folder.js';

/** Where a model's file comes from: its `unique`, an http(s) URL, with an optional `#sha256=<hex>`. */
export interface DownloadSource {
  readonly url: string;
  /** The file's name in the model's cache folder. */
  readonly fileName: string;
  readonly sha256?: string;
  /** The size the file must have, when the model says (`bytes.value`). */
  readonly bytes?: number;
}

/** The API's ModelDownloadProgress statuses. */
export type DownloadStatus = 'UNKNOWN' | 'INITIALIZED' | 'IN-PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELED';

/** Where one model's download stands. */
export interface DownloadState {
  readonly status: DownloadStatus;
  /** 0–100, when the size is known. */
  readonly percentage: number | null;
  /** Why it failed. */
  readonly error?: string;
}

/** The suffix of a file being downloaded: never loaded, kept to resume from. */
export const PARTIAL_SUFFIX = '.partial';

/**
 * The download source a model's `unique` names, if it is an http(s) URL (`#sha256=<64 hex>` in its
 * fragment, as pip's hash fragments, gives the checksum; the fragment is never sent). Undefined for
 * any other `unique` (a runtime's model name). Throws on a URL that names no file.
 */
export function downloadSourceOf(unique: string | undefined, bytes?: number): DownloadSource | undefined {
  if (!unique || !/^https?:\/\//i.test(unique)) return undefined;
  const url = new URL(unique);
  const sha256 = /(?:^|&)sha256=([0-9a-f]{64})(?:&|$)/i.exec(url.hash.slice(1))?.[1]?.toLowerCase();
  url.hash = '';
  const fileName = decodeURIComponent(url.pathname.split('/').pop() ?? '').replace(/[^\w.-]+/g, '_');
  if (!fileName || fileName === '.' || fileName === '..') throw new Error(`The download source ${url.href} names no file.`);
  return { url: url.href, fileName, ...(sha256 ? { sha256 } : {}), ...(bytes !== undefined ? { bytes } : {}) };
}

/** Whether the model's cache folder holds a finished file (not a partial one). */
export async function hasDownloadedFile(cacheRoot: string, modelId: string): Promise<boolean> {
  const names = await readdir(cacheFolderOf(cacheRoot, modelId)).catch(() => [] as string[]);
  return names.some((name) => !name.endsWith(PARTIAL_SUFFIX));
}

interface Job {
  state: DownloadState;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * Downloads model files into their cache folders, in the background: one job per model however
 * many callers ask; progress to poll; a cut download resumes from its partial file (HTTP `Range`),
 * in this process or the next; the size and checksum are checked before the file counts; a
 * cancel removes the partial file.
 */
export function createDownloads(options: {
  cacheRoot: string;
  fetch?: typeof fetch;
  onFinished(modelId: string, ok: boolean): Promise<void>;
}) {
  const jobs = new Map<string, Job>();
  const doFetch = options.fetch ?? fetch;

  async function run(modelId: string, source: DownloadSource, job: { state: DownloadState; controller: AbortController }): Promise<void> {
    const folder = cacheFolderOf(options.cacheRoot, modelId);
    const final = path.join(folder, source.fileName);
    const partial = `${final}${PARTIAL_SUFFIX}`;
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const have = await stat(partial).then(
      (s) => s.size,
      () => 0,
    );
    const response = await doFetch(source.url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: job.controller.signal });
    if (!response.ok || !response.body) throw new Error(`The download source answered ${response.status}.`);
    // 206: the server resumes where the partial file ends; 200: it sends the whole file again.
    const resumed = response.status === 206 && have > 0;
    const offset = resumed ? have : 0;
    const length = Number(response.headers.get('content-length'));
    const total = source.bytes ?? (Number.isFinite(length) && length > 0 ? offset + length : undefined);
    let received = offset;
    const progress = () => (job.state = { status: 'IN-PROGRESS', percentage: total ? Math.min(100, (received / total) * 100) : null });
    progress();
    const handle = await open(partial, resumed ? 'a' : 'w', 0o600);
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        let written = 0;
        while (written < chunk.byteLength) written += (await handle.write(chunk, written)).bytesWritten;
        received += chunk.byteLength;
        progress();
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (total !== undefined && received < total) {
      // Cut short (the connection dropped): the partial file stays, to resume from.
      throw new Error(`The download stopped at ${received} of ${total} bytes; asking again resumes it.`);
    }
    if (source.bytes !== undefined && received !== source.bytes) {
      await rm(partial, { force: true });
      throw new Error(`The download has ${received} bytes; the model says ${source.bytes}.`);
    }
    if (source.sha256 && (await sha256Of(partial)) !== source.sha256) {
      await rm(partial, { force: true });
      throw new Error(`The downloaded file's sha256 is not ${source.sha256}.`);
    }
    await rename(partial, final);
  }

  const isRunning = (modelId: string): boolean => {
    const status = jobs.get(modelId)?.state.status;
    return status === 'IN-PROGRESS' || status === 'INITIALIZED';
  };

  return {
    /** Starts (or joins) the download of `modelId` from `source`; resolves at once. */
    start(modelId: string, source: DownloadSource): DownloadState {
      const current = jobs.get(modelId);
      if (current && isRunning(modelId)) return current.state;
      const controller = new AbortController();
      const job = { state: { status: 'INITIALIZED', percentage: 0 } as DownloadState, controller } as Job;
      (job as { done: Promise<void> }).done = run(modelId, source, job).then(
        async () => {
          job.state = { status: 'COMPLETED', percentage: 100 };
          await options.onFinished(modelId, true);
        },
        async (error: unknown) => {
          if (controller.signal.aborted) return;
          job.state = { status: 'FAILED', percentage: job.state.percentage, error: (error as Error).message };
          await options.onFinished(modelId, false);
        },
      );
      jobs.set(modelId, job);
      return job.state;
    },
    /** Where the download of `modelId` stands, if one was asked for since the service started. */
    state(modelId: string): DownloadState | undefined {
      return jobs.get(modelId)?.state;
    },
    isRunning,
    /** Stops the download of `modelId` and removes its partial file. */
    async cancel(modelId: string): Promise<void> {
      const job = jobs.get(modelId);
      if (job && isRunning(modelId)) {
        job.controller.abort();
        await job.done.catch(() => undefined);
      }
      if (job) job.state = { status: 'CANCELED', percentage: null };
      const folder = cacheFolderOf(options.cacheRoot, modelId);
      for (const name of await readdir(folder).catch(() => [] as string[])) {
        if (name.endsWith(PARTIAL_SUFFIX)) await rm(path.join(folder, name), { force: true });
      }
    },
    /** Waits for the download of `modelId` to end (tests, shutdown). */
    async settled(modelId: string): Promise<void> {
      await jobs.get(modelId)?.done;
    },
    /** Stops every download, keeping the partial files to resume from. */
    async close(): Promise<void> {
      for (const job of jobs.values()) job.controller.abort();
      await Promise.all([...jobs.values()].map((job) => job.done.catch(() => undefined)));
    },
  };
}

export type Downloads = ReturnType<typeof createDownloads>;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
