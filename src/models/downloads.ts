import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { ServiceError } from '../errors.js';
import { addressPolicy } from './address-policy.js';
import { cacheFolderOf } from './cache-folder.js';
import { type AnswerPlan, checkAnswer } from './download-answer.js';
import { asDownloadFailure, bytesText, DownloadFailure, mibText } from './download-failure.js';
import { type DownloadOptions, resolveDownloadOptions } from './download-options.js';
import { requestFile } from './download-request.js';
import { freeBytes } from './free-space.js';
import { abandonedAfterMs, claimPartial, ownPartialName, parkedPartialName, parkPartial, removeIdlePartials } from './partial-claims.js';
import { isRealFolder, openPartial, PARTIAL_SUFFIX, partialBytes, prepareFolder } from './partial-file.js';
import { receiveBody } from './receive-body.js';

export { PARTIAL_SUFFIX } from './partial-file.js';

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
  /** Why it failed (FAILED only); starts with one of {@link DownloadFailure}'s stable phrases. */
  readonly reason?: string;
  /** The bytes of the file on disk so far, a resumed download's earlier ones included (IN-PROGRESS only). */
  readonly bytesReceived?: number;
  /** The whole file's size, when known (IN-PROGRESS only): what a client's speed and time left are measured against. */
  readonly bytesTotal?: number;
}

/** The last failure of a model's download in this process. */
export interface DownloadFailureNote {
  /** Why, starting with a stable phrase (`disk full`, `stalled`, …). */
  readonly reason: string;
  /** When, as an ISO time. */
  readonly at: string;
}

/** What {@link createDownloads} needs besides the {@link DownloadOptions}. */
export interface DownloadsSetup extends DownloadOptions {
  /** The folder of the models' cache folders (`DATA_DIR/models`). */
  readonly cacheRoot: string;
  /** Where each failure is reported, once. */
  readonly logger: { warn(message: string): void };
  /** The clock of the failures' times. Default `() => new Date()`. */
  readonly now?: () => Date;
}

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

/**
 * The size of what the model's cache folder holds, finished: its regular files but the partial
 * ones, in bytes (the downloaded file). Undefined when it holds none, or is not a real folder.
 */
export async function downloadedBytes(cacheRoot: string, modelId: string): Promise<number | undefined> {
  const folder = cacheFolderOf(cacheRoot, modelId);
  // Never through a link planted in place of the folder.
  if (!(await isRealFolder(folder))) return undefined;
  let total: number | undefined;
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (name.endsWith(PARTIAL_SUFFIX)) continue;
    const stats = await lstat(path.join(folder, name)).catch(() => undefined);
    if (stats?.isFile()) total = (total ?? 0) + stats.size;
  }
  return total;
}

interface Job {
  state: DownloadState;
  readonly controller: AbortController;
  done: Promise<void>;
}

/**
 * Downloads model files into their cache folders, in the background: one job per model however
 * many callers ask; progress to poll. The declared size, the server's `Content-Length`, a free-space
 * reserve, a stall deadline and (optionally) an address policy are enforced while the bytes arrive;
 * a cut download resumes from its partial file (a checked `Range` request), in this process or the
 * next; the checksum is checked before the file counts. Every failure has a reason, logged once.
 */
export function createDownloads(setup: DownloadsSetup) {
  const options = resolveDownloadOptions(setup);
  const policy = addressPolicy(options.privateAddresses, options.allowedHosts);
  const now = setup.now ?? (() => new Date());
  const jobs = new Map<string, Job>();
  const failures = new Map<string, DownloadFailureNote>();
  const abandonedMs = abandonedAfterMs(options);

  /** Why `needed` more bytes do not fit in `folder` while keeping the reserve, or undefined when they do. */
  async function shortfall(folder: string, needed: number): Promise<string | undefined> {
    const free = await freeBytes(folder);
    if (free - needed >= options.minFreeBytes) return undefined;
    const keeps = `downloads leave ${mibText(options.minFreeBytes)} free (minFreeBytes)`;
    return needed > 0
      ? `the file needs ${mibText(needed)} more; the disk has ${mibText(free)} free, and ${keeps}`
      : `the disk has ${mibText(free)} free, and ${keeps}`;
  }

  async function run(modelId: string, source: DownloadSource, job: Job): Promise<void> {
    const folder = cacheFolderOf(setup.cacheRoot, modelId);
    const finished = path.join(folder, source.fileName);
    // This download's own partial file: another process sharing the folder never writes it (see partial-claims.ts).
    const partial = path.join(folder, ownPartialName(source.fileName));
    try {
      await prepareFolder(folder);
      // Another process sharing the folder finished it since this one was asked for.
      if (await isFinishedFile(finished)) return;
      let have = await claimPartial(folder, source.fileName, partial, abandonedMs);
      // More bytes than the whole file: the partial file is wrong, start over.
      if (source.bytes !== undefined && have > source.bytes) have = 0;
      // A resume the server does not answer as asked is asked again once, for the whole file:
      // `checkAnswer` answers 'restart' only when `from` > 0, so this loops at most twice.
      for (let from = have; ; from = 0) {
        const response = await requestFile({
          url: source.url,
          from,
          policy,
          connectTimeoutMs: options.connectTimeoutMs,
          signal: job.controller.signal,
        });
        try {
          const plan = checkAnswer(response, from, source.bytes);
          if (plan === 'restart') continue;
          await receive(response, plan);
          break;
        } finally {
          response.destroy();
        }
      }
    } catch (error) {
      const failure = asDownloadFailure(error);
      // Never through a linked folder.
      if (await isRealFolder(folder)) {
        // Its bytes are wrong, or the disk needs its room; otherwise they are kept to resume from.
        if (!failure.keepPartial && !job.controller.signal.aborted) await rm(partial, { force: true });
        else await parkPartial(folder, source.fileName, partial).catch(() => rm(partial, { force: true }));
      }
      throw failure;
    }

    async function receive(response: IncomingMessage, plan: AnswerPlan): Promise<void> {
      const total = source.bytes ?? plan.total;
      const checkRoom = async (needed: number) => {
        const missing = await shortfall(folder, needed);
        if (missing) throw new DownloadFailure(`disk full: ${missing}`, false);
      };
      await checkRoom(total === undefined ? 0 : total - plan.offset);
      const handle = await openPartial(partial, plan.offset > 0);
      let received = plan.offset;
      job.state = progress(received, total);
      try {
        received = await receiveBody(response, handle, received, {
          declared: source.bytes,
          stallBytes: options.stallBytes,
          stallTimeoutMs: options.stallTimeoutMs,
          signal: job.controller.signal,
          checkRoom: () => checkRoom(0),
          onProgress: (size) => (job.state = progress(size, total)),
        });
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (total !== undefined && received < total) {
        const why = `connection lost: the server stopped at ${bytesText(received)} of ${bytesText(total)}; asking again resumes`;
        throw new DownloadFailure(why, true);
      }
      if (source.sha256) {
        const actual = await sha256Of(partial);
        if (actual !== source.sha256) {
          throw new DownloadFailure(`checksum mismatch: the file's sha256 is ${actual}, not ${source.sha256}`, false);
        }
      }
      // Whole and checked: it appears under its name at once (a rename), never in part. One that
      // another process finished meanwhile is as whole: it stays, and this copy goes.
      if (await isFinishedFile(finished)) await rm(partial, { force: true });
      else await rename(partial, finished);
    }
  }

  const isRunning = (modelId: string): boolean => {
    const status = jobs.get(modelId)?.state.status;
    return status === 'IN-PROGRESS' || status === 'INITIALIZED';
  };

  return {
    /**
     * Starts (or joins) the download of `modelId` from `source`, and resolves once it runs in the
     * background. A declared size (`source.bytes`) that does not fit on the disk while leaving
     * `minFreeBytes` free is refused at once: ServiceError INSUFFICIENT_STORAGE, nothing written.
     */
    async start(modelId: string, source: DownloadSource): Promise<DownloadState> {
      if (isRunning(modelId)) return jobs.get(modelId)!.state;
      if (source.bytes !== undefined) {
        const folder = cacheFolderOf(setup.cacheRoot, modelId);
        const have = (await isRealFolder(folder)) ? await partialBytes(path.join(folder, parkedPartialName(source.fileName))) : 0;
        const missing = await shortfall(folder, Math.max(0, source.bytes - have));
        if (missing) {
          throw new ServiceError('INSUFFICIENT_STORAGE', `Not enough disk space to download model "${modelId}": ${missing}.`, {
            resource: 'model',
            id: modelId,
          });
        }
        // Another caller may have started it while the disk was measured.
        if (isRunning(modelId)) return jobs.get(modelId)!.state;
      }
      failures.delete(modelId);
      const controller = new AbortController();
      const job: Job = { state: { status: 'INITIALIZED', percentage: 0 }, controller, done: Promise.resolve() };
      job.done = run(modelId, source, job).then(
        () => {
          job.state = { status: 'COMPLETED', percentage: 100 };
          failures.delete(modelId);
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          const reason = asDownloadFailure(error).message;
          job.state = { status: 'FAILED', percentage: job.state.percentage, reason };
          failures.set(modelId, { reason, at: now().toISOString() });
          setup.logger.warn(`The download of model "${modelId}" failed: ${reason}`);
        },
      );
      jobs.set(modelId, job);
      return job.state;
    },
    /** Where the download of `modelId` stands, if one was asked for since the service started. */
    state(modelId: string): DownloadState | undefined {
      return jobs.get(modelId)?.state;
    },
    /**
     * The last failure of a download of `modelId` in this process: why and when. Cleared when a new
     * download of it starts, completes, or is cancelled.
     */
    failure(modelId: string): DownloadFailureNote | undefined {
      return failures.get(modelId);
    },
    isRunning,
    /**
     * Stops the download of `modelId` and removes its partial files, but those another process
     * sharing the folder is writing.
     */
    async cancel(modelId: string): Promise<void> {
      const job = jobs.get(modelId);
      if (job && isRunning(modelId)) {
        job.controller.abort();
        await job.done;
      }
      if (job) job.state = { status: 'CANCELED', percentage: null };
      failures.delete(modelId);
      const folder = cacheFolderOf(setup.cacheRoot, modelId);
      // Never through a link planted in place of the folder.
      if (!(await isRealFolder(folder))) return;
      await removeIdlePartials(folder, abandonedMs);
    },
    /** Waits for the download of `modelId` to end (tests, shutdown). */
    async settled(modelId: string): Promise<void> {
      await jobs.get(modelId)?.done;
    },
    /** Stops every download, keeping the partial files to resume from. */
    async close(): Promise<void> {
      for (const job of jobs.values()) job.controller.abort();
      await Promise.all([...jobs.values()].map((job) => job.done));
    },
  };
}

export type Downloads = ReturnType<typeof createDownloads>;

/** The state of a download under way: the bytes so far, and a percentage and the total when the size is known. */
const progress = (received: number, total: number | undefined): DownloadState => ({
  status: 'IN-PROGRESS',
  percentage: total ? Math.min(100, (received / total) * 100) : null,
  bytesReceived: received,
  ...(total !== undefined ? { bytesTotal: total } : {}),
});

/** Whether `file` is a regular file (a finished download), not a link or a folder. */
const isFinishedFile = async (file: string): Promise<boolean> => (await lstat(file).catch(() => undefined))?.isFile() === true;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
