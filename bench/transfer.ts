/**
 * Export and import rates, and what an export costs in memory: `npm run bench:transfer`.
 *
 * Builds a data folder of BENCH_TRANSFER_CONVERSATIONS conversations (default 10,000) of 20
 * messages each, opens a service on it, and exports it as this service's JSON to a file, sampling
 * the process's resident memory every 10 ms: the peak above what the service held before the
 * export began is the export's own (the target is 64 MiB at most). Then imports the file into an
 * empty folder, and once more (a second import, which writes nothing). Each step is bounded by
 * BENCH_TRANSFER_TIMEOUT_S (default 600 s); the folders are removed at the end.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createJsonFileRepository, createService } from '../src/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { buildStore } from './build-store.js';

const COUNT = Number(process.env.BENCH_TRANSFER_CONVERSATIONS ?? 10_000);
const TIMEOUT_MS = Number(process.env.BENCH_TRANSFER_TIMEOUT_S ?? 600) * 1000;
const MiB = 1024 * 1024;
const TARGET_MIB = 64;

/** Runs `work` within the time bound, naming the step when it is over. */
async function bounded<T>(step: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step} took longer than ${TIMEOUT_MS / 1000} s (BENCH_TRANSFER_TIMEOUT_S)`)), TIMEOUT_MS);
  });
  try {
    return await Promise.race([work(), over]);
  } finally {
    clearTimeout(timer);
  }
}

/** The highest resident memory seen while `work` runs, sampled every 10 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Runs this script in a child process that only builds the store in `folder`. */
async function buildInChild(folder: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_TRANSFER_BUILD: folder },
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`building the store exited with ${code}`);
}

async function build(folder: string): Promise<void> {
  const repository = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
  await buildStore(repository, COUNT);
  await repository.close();
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-transfer-'));
  try {
    const from = path.join(root, 'from');
    const to = path.join(root, 'to');
    const file = path.join(root, 'export.json');

    let started = performance.now();
    // Built by a process of its own: what building costs this one must not hide what the export costs.
    await bounded('building the store', () => buildInChild(from));
    console.error(`built ${COUNT} conversations × 20 messages in ${seconds(performance.now() - started)} s`);

    const source = await createService({ dataDir: from, summarizer: createFakeSummarizer() });
    // The service's own: the store open, its first read and search done, and the work an open
    // starts in the background over the whole store (the check of every message, the search
    // index read back) finished: that grows with the store, and is not the export's.
    await source.listConversations({ limit: 1 });
    await source.searchMessages({ engines: { iterable: [{ query: 'retry' }] } });
    const checked = performance.now() + TIMEOUT_MS;
    while ((await source.health()).store?.check.state === 'running') {
      if (performance.now() > checked) throw new Error('the store check did not end within BENCH_TRANSFER_TIMEOUT_S');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    gc();
    const before = process.memoryUsage.rss();
    started = performance.now();
    const { peak } = await bounded('the export', () =>
      peakRss(() => pipeline(Readable.from(source.exportConversations({ format: 'json' })), createWriteStream(file))),
    );
    const exportMs = performance.now() - started;
    await source.close();
    const bytes = (await stat(file)).size;

    const target = await createService({ dataDir: to, summarizer: createFakeSummarizer() });
    started = performance.now();
    const report = await bounded('the import', () => target.importConversations(file));
    const importMs = performance.now() - started;
    started = performance.now();
    const again = await bounded('the second import', () => target.importConversations(file));
    const againMs = performance.now() - started;
    await target.close();
    if (report.conversations.written !== COUNT || again.conversations.unchanged !== COUNT) {
      throw new Error(
        `the import wrote ${report.conversations.written} conversations, the second found ${again.conversations.unchanged} unchanged, of ${COUNT}`,
      );
    }

    const above = (peak - before) / MiB;
    console.log(`## Export and import (${COUNT} conversations × 20 messages, JSON-file store)\n`);
    console.log('| step | time | rate | memory |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| export (JSON, ${(bytes / MiB).toFixed(0)} MiB) | ${seconds(exportMs)} s | ${Math.round(COUNT / (exportMs / 1000))} conversations/s | peak RSS ${above.toFixed(0)} MiB above the service's own (${(before / MiB).toFixed(0)} MiB); target ≤ ${TARGET_MIB} MiB: ${above <= TARGET_MIB ? 'met' : 'NOT met'} |`,
    );
    console.log(`| import into an empty folder | ${seconds(importMs)} s | ${Math.round(COUNT / (importMs / 1000))} conversations/s | |`);
    console.log(`| import again (writes nothing) | ${seconds(againMs)} s | ${Math.round(COUNT / (againMs / 1000))} conversations/s | |`);
    console.log('');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.env.BENCH_TRANSFER_BUILD) await build(process.env.BENCH_TRANSFER_BUILD);
else await main();
