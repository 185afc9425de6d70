/**
 * `npm run bench`: the JSON-file repository against the first release's whole-file lowdb write,
 * at 100, 1,000 and 10,000 conversations (~20 messages and a few links each). Measures, in one
 * run: link mutations per second and p50/p99 latency in-process and over HTTP with 50 concurrent
 * clients; GET /conversation/{id}?transferables=false against a bare Hono route answering a
 * constant object of the same size; the time to open each store and the process RSS.
 * Env: BENCH_SIZES=100,1000 to choose sizes, BENCH_SECONDS=3 per HTTP measurement.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createJsonFileRepository } from '../src/index.js';
import { buildStore, type BuiltStore } from './build-store.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CHILD = path.resolve('bench/child.ts');
type Store = 'journal' | 'naive';

interface Row {
  size: number;
  store: Store;
  openMs: number;
  rssMb: number;
  inProcess: { opsPerSecond: number; p50: number; p99: number };
  http: { opsPerSecond: number; p50: number; p99: number; failed: number };
  get?: { barePerSecond: number; hotPerSecond: number; spreadPerSecond: number; bodyBytes: number };
}

function startChild(args: string[]): { child: ChildProcess; firstLine: Promise<Record<string, number>> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '--expose-gc' } });
  const firstLine = new Promise<Record<string, number>>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`child ${args.join(' ')} gave no answer in 120 s`)), 120_000);
    child.stdout!.on('data', (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline !== -1) {
        clearTimeout(timer);
        resolve(JSON.parse(buffer.slice(0, newline)));
      }
    });
    child.on('exit', (code) => code !== 0 && code !== null && reject(new Error(`child ${args.join(' ')} exited with ${code}`)));
  });
  return { child, firstLine };
}

/** Drives the server with 50 connections for SECONDS, or for `amount` requests when given (a warm-up). */
async function load(port: number, paths: () => string, method: 'GET' | 'POST', amount?: number) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 50,
    ...(amount ? { amount } : { duration: SECONDS }),
    requests: [{ method, setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors };
}

function linkPaths(ids: BuiltStore): () => string {
  let n = 0;
  return () => {
    n++;
    const conversation = ids.conversations[(n * 7919) % ids.conversations.length]!;
    const website = ids.websites[(n * 104729) % ids.websites.length]!;
    return `/conversation/${conversation}/websites/${n % 2 === 0 ? 'associate' : 'disassociate'}/${website}`;
  };
}

async function measure(size: number, store: Store, file: string, idsFile: string, ids: BuiltStore): Promise<Row> {
  const inProcess = startChild(['inprocess', store, file, idsFile]);
  const local = await inProcess.firstLine;
  await new Promise((resolve) => inProcess.child.once('exit', resolve));

  const server = startChild(['serve', store, file, idsFile]);
  const ready = await server.firstLine;
  try {
    const mutations = await load(ready.port!, linkPaths(ids), 'POST');
    const row: Row = {
      size,
      store,
      openMs: ready.openMs!,
      rssMb: ready.rss! / 2 ** 20,
      inProcess: { opsPerSecond: local.opsPerSecond!, p50: local.p50!, p99: local.p99! },
      http: { opsPerSecond: mutations.perSecond, p50: mutations.p50, p99: mutations.p99, failed: mutations.failed },
    };
    if (store === 'journal') {
      const get = (id: string) => `/conversation/${id}?transferables=false`;
      let n = 0;
      const spread = () => get(ids.conversations[(n++ * 7919) % ids.conversations.length]!);
      // The bare route is measured before and after ours, and its mean is the baseline, so a
      // drift of the shared machine's speed during the run does not land on one side only.
      const bareBefore = await load(ready.port!, () => '/bare', 'GET');
      // One conversation read over and over (a client polling the open conversation)...
      const hot = await load(ready.port!, () => get(ids.conversations[0]!), 'GET');
      // ...and reads spread over every conversation, measured after one unmeasured pass that reads
      // each once: the first read of a record since the store opened also freezes it, a one-time
      // cost that is not what a long-running service pays.
      await load(ready.port!, spread, 'GET', ids.conversations.length);
      const warmSpread = await load(ready.port!, spread, 'GET');
      const bareAfter = await load(ready.port!, () => '/bare', 'GET');
      row.get = {
        barePerSecond: (bareBefore.perSecond + bareAfter.perSecond) / 2,
        hotPerSecond: hot.perSecond,
        spreadPerSecond: warmSpread.perSecond,
        bodyBytes: ready.bodyBytes!,
      };
    }
    return row;
  } finally {
    server.child.kill('SIGTERM');
  }
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const rows: Row[] = [];
for (const size of SIZES) {
  const folder = await mkdtemp(path.join(tmpdir(), `cms-bench-${size}-`));
  try {
    const file = path.join(folder, 'journal', 'db.json');
    const builder = await createJsonFileRepository({ file, durability: 'unsafe-no-fsync' });
    const ids = await buildStore(builder, size);
    await builder.close();
    const naiveFile = path.join(folder, 'naive.json');
    await copyFile(file, naiveFile);
    const idsFile = path.join(folder, 'ids.json');
    await writeFile(idsFile, JSON.stringify(ids));
    for (const store of ['journal', 'naive'] as const) {
      const row = await measure(size, store, store === 'journal' ? file : naiveFile, idsFile, ids);
      rows.push(row);
      console.error(`measured ${store} at ${size}`);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

console.log('\nLink mutations (associate/disassociate website), 50 concurrent clients, durable (fsync) for the journal');
console.log('| conversations | store | open ms | RSS MB | in-process ops/s | p50 ms | p99 ms | HTTP ops/s | p50 ms | p99 ms | failed |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.size} | ${r.store === 'journal' ? 'journal + snapshot' : 'naive lowdb (baseline)'} | ${fixed(r.openMs, 0)} | ${fixed(r.rssMb, 0)} | ${fixed(r.inProcess.opsPerSecond, 0)} | ${fixed(r.inProcess.p50, 2)} | ${fixed(r.inProcess.p99, 2)} | ${fixed(r.http.opsPerSecond, 0)} | ${fixed(r.http.p50, 0)} | ${fixed(r.http.p99, 0)} | ${r.http.failed} |`,
  );
}
console.log('\nGET /conversation/{id}?transferables=false against a bare Hono route (same body size); ratios are to the bare route');
console.log('| conversations | body bytes | bare req/s | one conversation req/s | ratio | spread over all req/s | ratio |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows.filter((row) => row.get)) {
  const g = r.get!;
  const ratio = (perSecond: number) => fixed(perSecond / g.barePerSecond, 2);
  console.log(
    `| ${r.size} | ${g.bodyBytes} | ${fixed(g.barePerSecond, 0)} | ${fixed(g.hotPerSecond, 0)} | ${ratio(g.hotPerSecond)} | ${fixed(g.spreadPerSecond, 0)} | ${ratio(g.spreadPerSecond)} |`,
  );
}
const journal = rows.filter((r) => r.store === 'journal');
const smallest = journal[0];
const largest = journal.at(-1);
if (smallest && largest && smallest !== largest) {
  const naiveLargest = rows.find((r) => r.store === 'naive' && r.size === largest.size)!;
  console.log('\nRatios');
  console.log(`- in-process mutation p50 at ${largest.size} / at ${smallest.size}: ${fixed(largest.inProcess.p50 / smallest.inProcess.p50, 2)}`);
  console.log(`- HTTP mutation p50 at ${largest.size} / at ${smallest.size}: ${fixed(largest.http.p50 / Math.max(smallest.http.p50, 1), 2)}`);
  console.log(`- HTTP mutations/s at ${largest.size}, journal / naive: ${fixed(largest.http.opsPerSecond / Math.max(naiveLargest.http.opsPerSecond, 1), 1)}`);
  console.log(`- in-process mutations/s at ${largest.size}, journal / naive: ${fixed(largest.inProcess.opsPerSecond / Math.max(naiveLargest.inProcess.opsPerSecond, 1), 1)}`);
}
