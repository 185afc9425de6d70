/**
 * `npm run bench`: the JSON-file repository against the first release's whole-file lowdb write,
 * at 100, 1,000 and 10,000 conversations (~20 messages and a few links each). Measures, in one
 * run: link mutations per second and p50/p99 latency in-process and over HTTP with 50 concurrent
 * clients; GET /conversation/{id} and GET /conversation/{id}/messages (?transferables=false) against
 * bare Hono routes answering constant objects of the same sizes; durable POST /messages/create
 * against a bare route reading the same body; the time to open each store and the process RSS.
 *
 * The machine is shared and its speed drifts, so sizes are not measured one after the other:
 * every subject is measured once per round, rounds alternate between subjects, and each figure is
 * the median over the rounds. Ratios between sizes then compare measurements taken seconds apart.
 *
 * Then it runs the search benchmark (bench/search.ts, `npm run bench:search`, with its own SEARCH_*
 * env), the costly-search attacks (bench/attacks.ts, `npm run bench:attacks`, ATTACKS_* env), the
 * index of made-up words (bench/index-size.ts, `npm run bench:index-size`, INDEX_* env) and the
 * PostgreSQL store beside the JSON-file store (bench/postgres.ts, `npm run bench:postgres`,
 * BENCH_PG_* env), each in a process of its own, once the stores above are gone. The first two
 * need the developer chats, kept outside the repository: without them they are skipped, saying
 * what to provide (bench/outside-data.ts); the last needs PostgreSQL's binaries, and is skipped
 * likewise without them. Last, the change streams (bench/streams.ts, `npm run bench:streams`,
 * STREAMS_* env): what 1,000 subscribers cost, and a stalled one beside them; then export and
 * import (bench/transfer.ts, `npm run bench:transfer`): their rates, and the memory of an export.
 *
 * It runs in ten sections (bench/sections.ts): it says first each one's estimated duration and
 * the total, then each one as it starts and ends (on stderr; the figures go to stdout).
 *
 * Env: BENCH_SIZES=100,1000 to choose sizes, BENCH_ROUNDS=3, BENCH_SECONDS=3 per HTTP measurement,
 * BENCH_DURATION_MS=2000 per in-process measurement, BENCH_JSON_CACHE_BYTES to try another answer
 * cache size (`conversationJsonCacheBytes`), BENCH_SKIP=stores,search,attacks,index-size,postgres,streams to leave
 * sections out.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createJsonFileRepository } from '../src/index.js';
import { type BuiltStore, buildStore, WRITE_BODY } from './build-store.js';
import { devChats, skippedForData } from './outside-data.js';
import { POSTGRES_KNOBS, POSTGRES_SECONDS, postgresMissing } from './postgres-options.js';
import { runSections, type Section } from './sections.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CHILD = path.resolve('bench/child.ts');
const STORES = ['journal', 'naive'] as const;
type Store = (typeof STORES)[number];

interface Subject {
  readonly size: number;
  readonly store: Store;
  readonly file: string;
  readonly idsFile: string;
  readonly ids: BuiltStore;
}

interface Figures {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

function startChild(args: string[]): { child: ChildProcess; firstLine: Promise<Record<string, number>> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '--expose-gc' },
  });
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

/**
 * Drives the server with 50 connections for SECONDS, or for `amount` requests when given (a
 * warm-up); `bodies` gives each request a JSON body.
 */
async function load(
  port: number,
  paths: () => string,
  method: 'GET' | 'POST',
  amount?: number,
  bodies?: () => string,
): Promise<Figures & { failed: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 50,
    ...(amount ? { amount } : { duration: SECONDS }),
    requests: [
      {
        method,
        setupRequest: (request) => ({
          ...request,
          path: paths(),
          ...(bodies ? { body: bodies(), headers: { ...request.headers, 'content-type': 'application/json' } } : {}),
        }),
      },
    ],
  });
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors };
}

/**
 * Waits until the server answers again. A load ends with requests still queued in the server (the
 * baseline spends a quarter of a second of CPU on each write), which must not run during the
 * next subject's measurement.
 */
function settle(port: number): Promise<void> {
  // A connection of its own: a kept-alive one may be closed by the server just as it is reused.
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path: '/bare', agent: false, timeout: 120_000 }, (response) => {
      response
        .resume()
        .on('end', () => resolve())
        .on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`the server on port ${port} did not settle in 120 s`))).on('error', reject);
  });
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

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const medianFigures = (runs: Figures[]): Figures => ({
  perSecond: median(runs.map((r) => r.perSecond)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
});

/** Keeps each subject's runs; `add` once per round. */
class Runs<T> {
  readonly #runs = new Map<Subject, T[]>();
  add(subject: Subject, run: T): void {
    this.#runs.set(subject, [...(this.#runs.get(subject) ?? []), run]);
  }
  of(subject: Subject): T[] {
    return this.#runs.get(subject) ?? [];
  }
}

const folders: string[] = [];
const subjects: Subject[] = [];
const servers = new Map<
  Subject,
  { child: ChildProcess; port: number; openMs: number; rss: number; bodyBytes: number; messagesBodyBytes: number }
>();
const inProcess = new Runs<Figures & { openMs: number; rss: number }>();
const mutations = new Runs<Figures & { failed: number }>();
const gets = new Runs<{ bare: number; hot: number; spread: number }>();
const messageGets = new Runs<{ bare: number; hot: number; spread: number }>();
const writes = new Runs<{ bare: number; create: number; p50: number; p99: number }>();
const spreadPaths = new Map<Subject, { conversation: () => string; messages: () => string }>();

/** Builds each size's store once, and a copy for the naive baseline. */
async function buildStores(): Promise<void> {
  for (const size of SIZES) {
    const folder = await mkdtemp(path.join(tmpdir(), `cms-bench-${size}-`));
    folders.push(folder);
    const file = path.join(folder, 'journal', 'db.json');
    const builder = await createJsonFileRepository({ file, durability: 'unsafe-no-fsync' });
    const ids = await buildStore(builder, size);
    await builder.close();
    const naiveFile = path.join(folder, 'naive.json');
    await copyFile(file, naiveFile);
    const idsFile = path.join(folder, 'ids.json');
    await writeFile(idsFile, JSON.stringify(ids));
    for (const store of STORES) subjects.push({ size, store, file: store === 'journal' ? file : naiveFile, idsFile, ids });
    console.error(`built ${size} conversations`);
  }
}

async function inProcessRounds(): Promise<void> {
  // In-process: each run is a fresh process on the store as the last run left it.
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects) {
      const run = startChild(['inprocess', subject.store, subject.file, subject.idsFile]);
      const figures = await run.firstLine;
      await new Promise((resolve) => run.child.once('exit', resolve));
      inProcess.add(subject, {
        perSecond: figures.opsPerSecond!,
        p50: figures.p50!,
        p99: figures.p99!,
        openMs: figures.openMs!,
        rss: figures.rss!,
      });
      console.error(
        `  ${subject.store} at ${subject.size} in-process: ${figures.opsPerSecond!.toFixed(1)} mutations/s, p50 ${figures.p50!.toFixed(2)} ms, opened in ${figures.openMs!.toFixed(0)} ms`,
      );
    }
    console.error(`in-process round ${round + 1} of ${ROUNDS}`);
  }
}

async function httpRounds(): Promise<void> {
  // Over HTTP: one server per subject, all started before any is measured.
  for (const subject of subjects) {
    const server = startChild(['serve', subject.store, subject.file, subject.idsFile]);
    const ready = await server.firstLine;
    servers.set(subject, {
      child: server.child,
      port: ready.port!,
      openMs: ready.openMs!,
      rss: ready.rss!,
      bodyBytes: ready.bodyBytes!,
      messagesBodyBytes: ready.messagesBodyBytes!,
    });
  }
  for (const subject of subjects.filter((s) => s.store === 'journal')) {
    const ids = subject.ids.conversations;
    const spread = (suffix: string) => {
      let n = 0;
      return () => `/conversation/${ids[(n++ * 7919) % ids.length]}${suffix}?transferables=false`;
    };
    const paths = { conversation: spread(''), messages: spread('/messages') };
    spreadPaths.set(subject, paths);
    // One unmeasured pass reads every conversation once: the first read of a record since the
    // store opened also freezes it, a one-time cost that is not what a long-running service pays.
    await load(servers.get(subject)!.port, paths.conversation, 'GET', ids.length);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects) {
      const { port } = servers.get(subject)!;
      const mutation = await load(port, linkPaths(subject.ids), 'POST');
      mutations.add(subject, mutation);
      console.error(`  ${subject.store} at ${subject.size}: ${mutation.perSecond.toFixed(1)} mutations/s, p50 ${mutation.p50} ms`);
      await settle(port);
      if (subject.store !== 'journal') continue;
      const get = `/conversation/${subject.ids.conversations[0]}?transferables=false`;
      // The bare route is measured before and after ours and averaged, so a drift of the machine's
      // speed during the round does not land on one side only.
      const bareBefore = await load(port, () => '/bare', 'GET');
      // One conversation read over and over (a client polling the open conversation), then reads
      // spread over every conversation.
      const hot = await load(port, () => get, 'GET');
      const spread = await load(port, spreadPaths.get(subject)!.conversation, 'GET');
      const bareAfter = await load(port, () => '/bare', 'GET');
      gets.add(subject, { bare: (bareBefore.perSecond + bareAfter.perSecond) / 2, hot: hot.perSecond, spread: spread.perSecond });
      console.error(
        `  GET at ${subject.size}: bare ${bareBefore.perSecond.toFixed(0)} and ${bareAfter.perSecond.toFixed(0)}, one ${hot.perSecond.toFixed(0)}, spread ${spread.perSecond.toFixed(0)} req/s`,
      );
      // The same for a conversation's messages, against a bare route answering a constant list of messages.
      const bareMessagesBefore = await load(port, () => '/bare-messages', 'GET');
      const hotMessages = await load(port, () => `/conversation/${subject.ids.conversations[0]}/messages?transferables=false`, 'GET');
      const spreadMessages = await load(port, spreadPaths.get(subject)!.messages, 'GET');
      const bareMessagesAfter = await load(port, () => '/bare-messages', 'GET');
      messageGets.add(subject, {
        bare: (bareMessagesBefore.perSecond + bareMessagesAfter.perSecond) / 2,
        hot: hotMessages.perSecond,
        spread: spreadMessages.perSecond,
      });
      console.error(
        `  GET messages at ${subject.size}: bare ${bareMessagesBefore.perSecond.toFixed(0)} and ${bareMessagesAfter.perSecond.toFixed(0)}, one ${hotMessages.perSecond.toFixed(0)}, spread ${spreadMessages.perSecond.toFixed(0)} req/s`,
      );
    }
    console.error(`HTTP round ${round + 1} of ${ROUNDS}`);
  }
}

async function writeRounds(): Promise<void> {
  // Writes last: they grow the conversations, which the reads above must find as built.
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects.filter((s) => s.store === 'journal')) {
      const { port } = servers.get(subject)!;
      // Durable writes with a body: createMessage spread over the conversations, against the bare
      // route reading the same body, before and after.
      let w = 0;
      const writeBody = () =>
        JSON.stringify({ ...WRITE_BODY, conversation: { id: subject.ids.conversations[(w++ * 7919) % subject.ids.conversations.length] } });
      const bareWriteBefore = await load(port, () => '/bare-write', 'POST', undefined, writeBody);
      const create = await load(port, () => '/messages/create?transferables=false', 'POST', undefined, writeBody);
      await settle(port);
      const bareWriteAfter = await load(port, () => '/bare-write', 'POST', undefined, writeBody);
      writes.add(subject, {
        bare: (bareWriteBefore.perSecond + bareWriteAfter.perSecond) / 2,
        create: create.perSecond,
        p50: create.p50,
        p99: create.p99,
      });
    }
    console.error(`write round ${round + 1} of ${ROUNDS}`);
  }
}

function printTables(): void {
  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  const local = (s: Subject) => medianFigures(inProcess.of(s));
  const http = (s: Subject) => medianFigures(mutations.of(s));
  console.log(
    `\nLink mutations (associate/disassociate website), 50 concurrent clients, durable (fsync) for the journal; medians of ${ROUNDS} rounds`,
  );
  console.log('| conversations | store | open ms | RSS MB | in-process ops/s | p50 ms | p99 ms | HTTP ops/s | p50 ms | p99 ms | failed |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const s of subjects) {
    const runs = inProcess.of(s);
    const [l, h] = [local(s), http(s)];
    const failed = mutations.of(s).reduce((sum, r) => sum + r.failed, 0);
    console.log(
      `| ${s.size} | ${s.store === 'journal' ? 'journal + snapshot' : 'naive lowdb (baseline)'} | ${fixed(median(runs.map((r) => r.openMs)), 0)} | ${fixed(median(runs.map((r) => r.rss)) / 2 ** 20, 0)} | ${fixed(l.perSecond, 0)} | ${fixed(l.p50, 2)} | ${fixed(l.p99, 2)} | ${fixed(h.perSecond, 0)} | ${fixed(h.p50, 0)} | ${fixed(h.p99, 0)} | ${failed} |`,
    );
  }

  const getTable = (
    title: string,
    runsOf: (s: Subject) => { bare: number; hot: number; spread: number }[],
    bytes: (s: Subject) => number,
  ) => {
    console.log(`\n${title}; ratios are to the bare route, measured before and after ours in each round; medians of ${ROUNDS} rounds`);
    console.log('| conversations | body bytes | bare req/s | one conversation req/s | ratio | spread over all req/s | ratio |');
    console.log('|---|---|---|---|---|---|---|');
    for (const s of subjects.filter((subject) => subject.store === 'journal')) {
      const runs = runsOf(s);
      // Each ratio is taken within a round, then the median over rounds.
      const ratio = (key: 'hot' | 'spread') => fixed(median(runs.map((r) => r[key] / r.bare)), 2);
      const rate = (key: 'bare' | 'hot' | 'spread') => fixed(median(runs.map((r) => r[key])), 0);
      console.log(
        `| ${s.size} | ${bytes(s)} | ${rate('bare')} | ${rate('hot')} | ${ratio('hot')} | ${rate('spread')} | ${ratio('spread')} |`,
      );
    }
  };
  getTable(
    'GET /conversation/{id}?transferables=false against a bare Hono route answering a constant conversation of the same size with c.json',
    (s) => gets.of(s),
    (s) => servers.get(s)!.bodyBytes,
  );
  getTable(
    'GET /conversation/{id}/messages?transferables=false against a bare Hono route answering a constant list of messages of the same size with c.json',
    (s) => messageGets.of(s),
    (s) => servers.get(s)!.messagesBodyBytes,
  );

  console.log(
    `\nPOST /messages/create (durable: fsync) against a bare Hono route reading the same body with c.req.json(); ratios are to the bare route; medians of ${ROUNDS} rounds`,
  );
  console.log('| conversations | bare req/s | createMessage req/s | ratio | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const s of subjects.filter((subject) => subject.store === 'journal')) {
    const runs = writes.of(s);
    console.log(
      `| ${s.size} | ${fixed(median(runs.map((r) => r.bare)), 0)} | ${fixed(median(runs.map((r) => r.create)), 0)} | ${fixed(median(runs.map((r) => r.create / r.bare)), 2)} | ${fixed(median(runs.map((r) => r.p50)), 0)} | ${fixed(median(runs.map((r) => r.p99)), 0)} |`,
    );
  }

  const journal = subjects.filter((s) => s.store === 'journal');
  const [smallest, largest] = [journal[0], journal.at(-1)];
  if (smallest && largest && smallest !== largest) {
    const naiveLargest = subjects.find((s) => s.store === 'naive' && s.size === largest.size)!;
    console.log('\nRatios');
    console.log(
      `- in-process mutation p50 at ${largest.size} / at ${smallest.size}: ${fixed(local(largest).p50 / local(smallest).p50, 2)}`,
    );
    console.log(
      `- HTTP mutation p50 at ${largest.size} / at ${smallest.size}: ${fixed(http(largest).p50 / Math.max(http(smallest).p50, 1), 2)}`,
    );
    console.log(
      `- HTTP mutations/s at ${largest.size}, journal / naive: ${fixed(http(largest).perSecond / Math.max(http(naiveLargest).perSecond, 1), 1)}`,
    );
    console.log(
      `- in-process mutations/s at ${largest.size}, journal / naive: ${fixed(local(largest).perSecond / Math.max(local(naiveLargest).perSecond, 1), 1)}`,
    );
  }
}

/** Stops the servers and removes the stores, before the next sections start. */
async function removeStores(): Promise<void> {
  for (const { child } of servers.values()) child.kill('SIGTERM');
  await Promise.all(
    [...servers.values()].map(({ child }) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)),
  );
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

/** A benchmark script run in a process of its own (its figures follow the ones above); it fails the section when it exits with an error. */
function script(file: string): () => Promise<void> {
  return async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(file)], { stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`${file} exited with ${code}`);
  };
}

/** bench/streams.ts at its defaults, on the project's busy 2-core machine (2026-11-28). */
const STREAMS_SECONDS = 180;
/** bench/transfer.ts at its defaults, measured alone on the project's busy 2-core machine. */
const TRANSFER_SECONDS = 150;
const sizes = SIZES.map((size) => size.toLocaleString('en-US')).join(', ');
const STORE_KNOBS = ['BENCH_SIZES', 'BENCH_ROUNDS'];
const devChatsMissing = () => skippedForData(undefined, devChats());
// Durations: one whole `npm run bench` at the defaults on the project's 2-core machine, 2026-11-28,
// while two other jobs used it too (load average 5–7): 29 min 20 s in all.
const SECTIONS: Section[] = [
  { group: 'stores', title: `stores: build ${sizes} conversations`, seconds: 10, knobs: ['BENCH_SIZES'], run: buildStores },
  {
    group: 'stores',
    title: `stores: link mutations in-process, ${ROUNDS} rounds`,
    seconds: 181,
    knobs: [...STORE_KNOBS, 'BENCH_DURATION_MS'],
    run: inProcessRounds,
  },
  {
    group: 'stores',
    title: `stores: link mutations, GET a conversation and its messages over HTTP, ${ROUNDS} rounds`,
    seconds: 343,
    knobs: [...STORE_KNOBS, 'BENCH_SECONDS'],
    run: httpRounds,
  },
  {
    group: 'stores',
    title: `stores: durable POST /messages/create over HTTP, ${ROUNDS} rounds`,
    seconds: 81,
    knobs: [...STORE_KNOBS, 'BENCH_SECONDS'],
    run: async () => {
      await writeRounds();
      printTables();
    },
  },
  {
    group: 'search',
    title: 'search (bench/search.ts)',
    seconds: 208,
    knobs: ['SEARCH_CONVERSATIONS', 'SEARCH_ROUNDS', 'SEARCH_WRITE_ROUNDS', 'SEARCH_WRITE_SECONDS', 'SEARCH_QUERIES', 'SEARCH_SKIP'],
    unmet: devChatsMissing,
    run: script('bench/search.ts'),
  },
  {
    group: 'attacks',
    title: 'attacks on search (bench/attacks.ts)',
    seconds: 206,
    knobs: ['ATTACKS_CONVERSATIONS', 'ATTACKS_ROUNDS', 'ATTACKS_REAL_QUERIES', 'ATTACKS_ONLY'],
    unmet: devChatsMissing,
    run: script('bench/attacks.ts'),
  },
  {
    group: 'index-size',
    title: 'index of made-up words (bench/index-size.ts)',
    seconds: 731,
    knobs: ['INDEX_MESSAGES', 'INDEX_WORDS', 'INDEX_ROUNDS'],
    run: script('bench/index-size.ts'),
  },
  {
    group: 'postgres',
    title: 'PostgreSQL beside the JSON-file store (bench/postgres.ts)',
    seconds: POSTGRES_SECONDS,
    knobs: POSTGRES_KNOBS,
    unmet: postgresMissing,
    run: script('bench/postgres.ts'),
  },
  {
    group: 'streams',
    title: 'change streams: 1,000 subscribers, one stalled (bench/streams.ts)',
    seconds: STREAMS_SECONDS,
    knobs: ['STREAMS_SUBSCRIBERS', 'STREAMS_ROUNDS', 'STREAMS_WRITES'],
    run: script('bench/streams.ts'),
  },
  {
    group: 'transfer',
    title: 'export and import: 10,000 conversations × 20 messages (bench/transfer.ts)',
    seconds: TRANSFER_SECONDS,
    knobs: ['BENCH_TRANSFER_CONVERSATIONS'],
    run: script('bench/transfer.ts'),
  },
];

const GROUPS = new Set(SECTIONS.map((section) => section.group));
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const unknown = [...skip].filter((group) => !GROUPS.has(group));
if (unknown.length > 0) {
  console.error(`BENCH_SKIP names ${unknown.join(', ')}: the sections are ${[...GROUPS].join(', ')}`);
  process.exit(2);
}
if (!(await runSections(SECTIONS, { skip, afterGroup: { stores: removeStores } }))) process.exitCode = 1;
