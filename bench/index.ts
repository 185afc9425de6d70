/**
 * `npm run bench`: the JSON-file repository at 100, 3,000 and 10,000 conversations (~20 messages
 * and a few links each), against named baselines, in one run:
 * - link mutations per second and p50/p99 latency in-process and over HTTP with 50 concurrent
 *   clients, against the first release's whole-file lowdb write;
 * - GET /conversation/{id} and GET /conversation/{id}/messages (?transferables=false), one
 *   conversation over and over and spread over every conversation, against the ceiling: bare Hono
 *   routes on the same server serving the service's own answers (the same bytes and headers,
 *   fetched once) from memory; and spread, against the SQLite peer (bench/sqlite-peer.ts: rows per
 *   message, the answer built per request) on the same @hono/node-server in a process of its own;
 * - durable POST /messages/create under 50 concurrent clients and one client at a time, against
 *   the SQLite peer's durable inserts (WAL, synchronous=FULL, FTS5 kept in the transaction), and
 *   against a bare route reading the same body;
 * - open: a server process's start to its first answer, and its RSS, beyond an empty folder, at
 *   10,000 and 50,000 conversations (BENCH_OPEN_SIZES), beside the SQLite peer's at the sizes it
 *   holds (bench/open-times.ts).
 * The SQLite peer needs better-sqlite3's native addon, built on demand the first time (a few
 * minutes, bench/sqlite-addon.ts); without it its columns are skipped with a printed reason, and
 * BENCH_SKIP=sqlite leaves it out.
 *
 * The machine is shared and its speed drifts, so sizes are not measured one after the other:
 * every subject is measured once per round, rounds alternate between subjects, and each figure is
 * the median over the rounds. Ratios between sizes then compare measurements taken seconds apart.
 *
 * Then it runs the search benchmark (bench/search.ts, `npm run bench:search`, with its own SEARCH_*
 * env; it measures FTS5 beside our search, and the disk size against SQLite's file), the
 * costly-search attacks (bench/attacks.ts, `npm run bench:attacks`, ATTACKS_* env), the index of
 * made-up words (bench/index-size.ts, `npm run bench:index-size`, INDEX_* env) and the PostgreSQL
 * store beside the JSON-file store (bench/postgres.ts, `npm run bench:postgres`, BENCH_PG_* env),
 * each in a process of its own, once the stores above are gone. The first two need the developer
 * chats, kept outside the repository: without them they are skipped, saying what to provide
 * (bench/outside-data.ts); the last needs PostgreSQL's binaries, and is skipped likewise without
 * them. Last, the change streams (bench/streams.ts, `npm run bench:streams`, STREAMS_* env): what
 * 1,000 subscribers cost, and a stalled one beside them; then export and import
 * (bench/transfer.ts, `npm run bench:transfer`): their rates, and the memory of an export. At the
 * end, one table of issue 30's
 * targets, a row per target (bench/targets.ts), the sections' rows together.
 *
 * It runs in eleven sections (bench/sections.ts): it says first each one's estimated duration and
 * the total, then each one as it starts and ends (on stderr; the figures go to stdout).
 *
 * Env: BENCH_SIZES=100,3000,10000 to choose sizes, BENCH_OPEN_SIZES=10000,50000, BENCH_ROUNDS=3,
 * BENCH_SECONDS=3 per HTTP measurement, BENCH_DURATION_MS=2000 per in-process measurement,
 * BENCH_JSON_CACHE_BYTES to try another answer cache size (`conversationJsonCacheBytes`),
 * BENCH_SKIP=stores,open,sqlite,search,attacks,index-size,postgres,streams,transfer to leave sections out
 * (`sqlite` leaves the SQLite peer out of every section).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createJsonFileRepository, createService } from '../src/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { type BuiltStore, buildStore, WRITE_BODY } from './build-store.js';
import { type OpenCase, openRounds } from './open-times.js';
import { devChats, skippedForData } from './outside-data.js';
import { POSTGRES_KNOBS, POSTGRES_SECONDS, postgresMissing } from './postgres-options.js';
import { runSections, type Section } from './sections.js';
import { loadSqlite, type SqliteConstructor, sqliteMissing } from './sqlite-addon.js';
import { buildPeerFromService } from './sqlite-load.js';
import { count, printTargets, recordTarget, times } from './targets.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,3000,10000').split(',').map(Number);
const OPEN_SIZES = (process.env.BENCH_OPEN_SIZES ?? '10000,50000').split(',').filter(Boolean).map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CHILD = path.resolve('bench/child.ts');
const SERVER_CHILD = path.resolve('bench/server-child.ts');
const STORES = ['journal', 'naive'] as const;
type Store = (typeof STORES)[number];
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
// Every section's target rows go to one file, printed as one table at the end (bench/targets.ts).
const TARGETS_FILE = path.join(tmpdir(), `cms-bench-targets-${process.pid}.jsonl`);
process.env.BENCH_TARGETS_FILE = TARGETS_FILE;

interface Subject {
  readonly size: number;
  readonly store: Store;
  readonly file: string;
  readonly idsFile: string;
  readonly ids: BuiltStore;
  /** The SQLite peer's database holding the same records (journal subjects, when the peer runs). */
  peerFile?: string;
  /**
   * The store the in-process link mutations change: for the journal, a copy, so that the store
   * served keeps the records the ceiling and the peer hold until the reads are measured.
   */
  inProcessFile: string;
}

interface Figures {
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

function startChild(args: string[], script = CHILD): { child: ChildProcess; firstLine: Promise<Record<string, number>> } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '--expose-gc' },
  });
  const firstLine = new Promise<Record<string, number>>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`child ${args.join(' ')} gave no answer in 300 s`)), 300_000);
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
 * Drives the server with `connections` (50) for SECONDS, or for `amount` requests when given (a
 * warm-up); `bodies` gives each request a JSON body.
 */
async function load(
  port: number,
  paths: () => string,
  method: 'GET' | 'POST',
  amount?: number,
  bodies?: () => string,
  connections = 50,
): Promise<Figures & { failed: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
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

/** One GET on a connection of its own: status and body. */
function fetchOnce(port: number, pathname: string): Promise<{ status: number; body: Buffer }> {
  // A connection of its own: a kept-alive one may be closed by the server just as it is reused.
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path: pathname, agent: false, timeout: 120_000 }, (response) => {
      const chunks: Buffer[] = [];
      response
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
        .on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`the server on port ${port} did not answer in 120 s`))).on('error', reject);
  });
}

/**
 * Waits until the server answers again. A load ends with requests still queued in the server (the
 * baseline spends a quarter of a second of CPU on each write), which must not run during the
 * next subject's measurement.
 */
async function settle(port: number): Promise<void> {
  await fetchOnce(port, '/.well-known/health');
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
/** The SQLite peer's server per size (journal subjects), when it runs. */
const peers = new Map<Subject, { child: ChildProcess; port: number }>();
const inProcess = new Runs<Figures & { openMs: number; rss: number }>();
const mutations = new Runs<Figures & { failed: number }>();
/** Requests per second: the ceiling (before and after ours, averaged), ours one and spread, SQLite's spread (NaN without it). */
type ReadRun = { ceiling: number; hot: number; spread: number; peerSpread: number };
const gets = new Runs<ReadRun>();
const messageGets = new Runs<ReadRun>();
/** Requests per second of durable writes: 50 clients (bare route, ours, SQLite) and one client (ours, SQLite). */
type WriteRun = { bare: number; create: number; p50: number; p99: number; peer: number; peerP50: number; one: number; peerOne: number };
const writes = new Runs<WriteRun>();
const spreadPaths = new Map<Subject, { conversation: () => string; messages: () => string }>();

/** better-sqlite3, when the peer runs; else why not (printed where its columns would be). */
let sqlite: { Database: SqliteConstructor } | { skipped: string } | undefined;
async function peerDatabase(): Promise<SqliteConstructor | undefined> {
  if (sqlite === undefined) {
    if (skip.has('sqlite')) sqlite = { skipped: 'left out (BENCH_SKIP=sqlite)' };
    else {
      const why = await sqliteMissing();
      const loaded = why === undefined ? loadSqlite() : undefined;
      sqlite = why !== undefined ? { skipped: why } : 'error' in loaded! ? { skipped: `skipped, ${loaded.error}` } : loaded!;
    }
    if ('skipped' in sqlite) console.log(`\nThe SQLite peer: ${sqlite.skipped}; its columns are left empty.`);
  }
  return 'Database' in sqlite ? sqlite.Database : undefined;
}

/** Builds a store of `size` conversations in `folder` (no fsync while building), and the SQLite peer's database of the same records. */
async function buildOne(folder: string, size: number, withPeer = true): Promise<{ file: string; ids: BuiltStore; peerFile?: string }> {
  const file = path.join(folder, 'journal', 'db.json');
  const builder = await createJsonFileRepository({ file, durability: 'unsafe-no-fsync' });
  const ids = await buildStore(builder, size);
  const Database = withPeer ? await peerDatabase() : undefined;
  if (Database === undefined) {
    await builder.close();
    return { file, ids };
  }
  const t0 = performance.now();
  const service = await createService({ repository: builder, summarizer: createFakeSummarizer() });
  const peerFile = path.join(folder, 'sqlite', 'peer.db');
  await mkdir(path.dirname(peerFile), { recursive: true });
  await buildPeerFromService(Database, peerFile, service, builder, ids.conversations);
  await service.close();
  console.error(`  the SQLite peer's ${size} conversations loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { file, ids, peerFile };
}

/** Builds each size's store once, a copy for the naive baseline, and the SQLite peer's. */
async function buildStores(): Promise<void> {
  for (const size of SIZES) {
    const folder = await mkdtemp(path.join(tmpdir(), `cms-bench-${size}-`));
    folders.push(folder);
    const { file, ids, peerFile } = await buildOne(folder, size);
    const naiveFile = path.join(folder, 'naive.json');
    await copyFile(file, naiveFile);
    const inProcessFolder = path.join(folder, 'journal-in-process');
    await cp(path.dirname(file), inProcessFolder, { recursive: true });
    const idsFile = path.join(folder, 'ids.json');
    await writeFile(idsFile, JSON.stringify(ids));
    for (const store of STORES)
      subjects.push({
        size,
        store,
        file: store === 'journal' ? file : naiveFile,
        inProcessFile: store === 'journal' ? path.join(inProcessFolder, path.basename(file)) : naiveFile,
        idsFile,
        ids,
        ...(store === 'journal' ? { peerFile } : {}),
      });
    console.error(`built ${size} conversations`);
  }
}

/**
 * Open times at OPEN_SIZES: the stores above where a size is theirs, else one built here (and
 * removed after); the SQLite peer beside ours where it holds the same records.
 */
async function openSection(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-open-'));
  try {
    const emptyOurs = { kind: 'ours' as const, file: path.join(root, 'empty', 'db.json') };
    const emptyPeer = { kind: 'sqlite' as const, file: path.join(root, 'empty.db') };
    const cases: OpenCase[] = [];
    for (const size of OPEN_SIZES) {
      let built = subjects.find((s) => s.store === 'journal' && s.size === size);
      if (!built) {
        const t0 = performance.now();
        // The peer only up to 10,000: loading it at 50,000 conversations would cost minutes for a figure of context.
        const { file, ids, peerFile } = await buildOne(path.join(root, String(size)), size, size <= 10_000);
        console.error(`built ${size} conversations for the open in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        built = { size, store: 'journal', file, inProcessFile: file, idsFile: '', ids, ...(peerFile ? { peerFile } : {}) };
      }
      const probe = built.ids.conversations[0]!;
      cases.push({ label: `ours at ${size}`, subject: { kind: 'ours', file: built.file, conversation: probe }, empty: emptyOurs });
      if (built.peerFile)
        cases.push({
          label: `SQLite at ${size}`,
          subject: { kind: 'sqlite', file: built.peerFile, conversation: probe },
          empty: emptyPeer,
        });
    }
    const figures = await openRounds(cases, ROUNDS);
    console.log(
      `\nOpen: a server process started afresh (bench/server-child.ts: ours is startHttpServer on the JSON-file store, the SQLite peer its Hono app) to the end of its first answer (GET /conversation/{id}?transferables=false), and its RSS then, each beyond the same start on an empty folder (an empty SQLite file); the time beyond empty from the end of the process's module loading (the same with or without a store, and the noisiest part of a start on a loaded machine), spawn to answer beside it; second starts (the files in the page cache); medians of ${ROUNDS} rounds`,
    );
    console.log(
      '| conversations | server | first answer beyond empty, ms | rounds, ms | empty, ms | spawn to answer, ms | RSS beyond empty MiB |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const c of cases) {
      const f = figures.get(c)!;
      console.log(
        `| ${c.label.replace(/^.* at /, '')} | ${c.subject.kind === 'ours' ? 'ours' : 'SQLite peer'} | ${f.ms.toFixed(0)} | ${f.runs.map((ms) => ms.toFixed(0)).join(', ')} | ${f.emptyMs.toFixed(0)} | ${f.spawnMs.toFixed(0)} | ${(f.rss / 2 ** 20).toFixed(1)} |`,
      );
    }
    const GOALS: Record<number, { ms: number; mib: number }> = { 10000: { ms: 300, mib: 61 }, 50000: { ms: 1000, mib: 152 } };
    for (const size of OPEN_SIZES) {
      const ours = figures.get(cases.find((c) => c.label === `ours at ${size}`)!)!;
      const peerCase = cases.find((c) => c.label === `SQLite at ${size}`);
      const peer = peerCase ? figures.get(peerCase) : undefined;
      const goal = GOALS[size];
      recordTarget({
        order: 70 + size / 1e6,
        target: `open, start to first answer beyond empty, ${count(size)} conversations`,
        ours: `${ours.ms.toFixed(0)} ms`,
        against: peer ? `SQLite peer ${peer.ms.toFixed(0)} ms` : 'its goal',
        ratio: peer ? times(ours.ms, peer.ms) : '—',
        goal: goal ? `≤ ${goal.ms} ms` : '',
        ...(goal ? { met: ours.ms <= goal.ms } : {}),
      });
      recordTarget({
        order: 71 + size / 1e6,
        target: `RSS beyond empty after the first answer, ${count(size)} conversations`,
        ours: `${(ours.rss / 2 ** 20).toFixed(0)} MiB`,
        against: peer ? `SQLite peer ${(peer.rss / 2 ** 20).toFixed(0)} MiB` : 'its goal',
        // Below a MiB, the peer's RSS beyond empty is noise: no ratio.
        ratio: peer && peer.rss >= 2 ** 20 ? times(ours.rss, peer.rss) : '—',
        goal: goal ? `≤ ${goal.mib} MiB` : '',
        ...(goal ? { met: ours.rss / 2 ** 20 <= goal.mib } : {}),
      });
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function inProcessRounds(): Promise<void> {
  // In-process: each run is a fresh process on the store as the last run left it.
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects) {
      const run = startChild(['inprocess', subject.store, subject.inProcessFile, subject.idsFile]);
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
  // Over HTTP: one server per subject, and the SQLite peer's per size, all started before any is measured.
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
    if (subject.peerFile) {
      const peer = startChild(['sqlite', subject.peerFile], SERVER_CHILD);
      peers.set(subject, { child: peer.child, port: (await peer.firstLine).port! });
    }
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
    // And the ceiling's routes, whose first requests would otherwise run before the JIT has compiled them.
    for (const suffix of ['', '/messages'])
      await load(servers.get(subject)!.port, () => `/ceiling/conversation/${ids[0]}${suffix}`, 'GET', 5000);
    const peer = peers.get(subject);
    if (peer) {
      await load(peer.port, paths.conversation, 'GET', ids.length);
      // The peer answers the same bytes: checked on a few conversations before anything is measured.
      for (const id of [ids[0]!, ids[Math.floor(ids.length / 2)]!, ids.at(-1)!])
        for (const suffix of ['', '/messages']) {
          const route = `/conversation/${id}${suffix}?transferables=false`;
          const [ours, theirs] = await Promise.all([fetchOnce(servers.get(subject)!.port, route), fetchOnce(peer.port, route)]);
          if (ours.status !== 200 || !ours.body.equals(theirs.body)) {
            let at = 0;
            while (at < ours.body.length && ours.body[at] === theirs.body[at]) at++;
            throw new Error(
              `the SQLite peer's answer to GET ${route} is not the service's (${theirs.body.length} bytes, ours ${ours.body.length}; from byte ${at}: ${theirs.body.subarray(at, at + 80)} | ours ${ours.body.subarray(at, at + 80)})`,
            );
          }
        }
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects.filter((s) => s.store === 'journal')) {
      const { port } = servers.get(subject)!;
      const peer = peers.get(subject);
      const id = subject.ids.conversations[0]!;
      for (const [suffix, runs] of [
        ['', gets],
        ['/messages', messageGets],
      ] as const) {
        // The ceiling is measured before and after ours and averaged, so a drift of the machine's
        // speed during the round does not land on one side only; the peer goes first in every
        // other round, for the same reason.
        const peerSpread = async () =>
          peer ? (await load(peer.port, spreadPaths.get(subject)![suffix ? 'messages' : 'conversation'], 'GET')).perSecond : NaN;
        const before = await load(port, () => `/ceiling/conversation/${id}${suffix}`, 'GET');
        const peerFirst = round % 2 === 1 ? await peerSpread() : undefined;
        // One conversation read over and over (a client polling the open conversation), then reads
        // spread over every conversation.
        const hot = await load(port, () => `/conversation/${id}${suffix}?transferables=false`, 'GET');
        const spread = await load(port, spreadPaths.get(subject)![suffix ? 'messages' : 'conversation'], 'GET');
        const peerAfter = peerFirst === undefined ? await peerSpread() : peerFirst;
        const after = await load(port, () => `/ceiling/conversation/${id}${suffix}`, 'GET');
        runs.add(subject, {
          ceiling: (before.perSecond + after.perSecond) / 2,
          hot: hot.perSecond,
          spread: spread.perSecond,
          peerSpread: peerAfter,
        });
        console.error(
          `  GET${suffix} at ${subject.size}: ceiling ${before.perSecond.toFixed(0)} and ${after.perSecond.toFixed(0)}, one ${hot.perSecond.toFixed(0)}, spread ${spread.perSecond.toFixed(0)}, SQLite spread ${peerAfter.toFixed(0)} req/s`,
        );
      }
    }
    console.error(`HTTP read round ${round + 1} of ${ROUNDS}`);
  }
  // Link mutations after every read round: they change the conversations' answers, which the
  // reads must find as the ceiling and the peer hold them.
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects) {
      const { port } = servers.get(subject)!;
      const mutation = await load(port, linkPaths(subject.ids), 'POST');
      mutations.add(subject, mutation);
      console.error(`  ${subject.store} at ${subject.size}: ${mutation.perSecond.toFixed(1)} mutations/s, p50 ${mutation.p50} ms`);
      await settle(port);
    }
    console.error(`HTTP link round ${round + 1} of ${ROUNDS}`);
  }
}

async function writeRounds(): Promise<void> {
  // Writes last: they grow the conversations, which the reads above must find as built.
  for (let round = 0; round < ROUNDS; round++) {
    for (const subject of subjects.filter((s) => s.store === 'journal')) {
      const { port } = servers.get(subject)!;
      const peer = peers.get(subject);
      // Durable writes with a body: createMessage spread over the conversations, against the bare
      // route reading the same body (before and after), and the SQLite peer's durable inserts.
      let w = 0;
      const writeBody = () =>
        JSON.stringify({ ...WRITE_BODY, conversation: { id: subject.ids.conversations[(w++ * 7919) % subject.ids.conversations.length] } });
      const create = () => '/messages/create?transferables=false';
      const bareWriteBefore = await load(port, () => '/bare-write', 'POST', undefined, writeBody);
      const many = async (target: number) => {
        const figures = await load(target, create, 'POST', undefined, writeBody);
        await settle(target);
        return figures;
      };
      // Ours and the peer's take turns going first.
      const peerFirst = peer && round % 2 === 1 ? await many(peer.port) : undefined;
      const ours = await many(port);
      const peerMany = peerFirst ?? (peer ? await many(peer.port) : undefined);
      const bareWriteAfter = await load(port, () => '/bare-write', 'POST', undefined, writeBody);
      // One writer at a time: a client that waits for each write's answer before the next.
      const peerOneFirst = peer && round % 2 === 1 ? await load(peer.port, create, 'POST', undefined, writeBody, 1) : undefined;
      const one = await load(port, create, 'POST', undefined, writeBody, 1);
      const peerOne = peerOneFirst ?? (peer ? await load(peer.port, create, 'POST', undefined, writeBody, 1) : undefined);
      writes.add(subject, {
        bare: (bareWriteBefore.perSecond + bareWriteAfter.perSecond) / 2,
        create: ours.perSecond,
        p50: ours.p50,
        p99: ours.p99,
        peer: peerMany?.perSecond ?? NaN,
        peerP50: peerMany?.p50 ?? NaN,
        one: one.perSecond,
        peerOne: peerOne?.perSecond ?? NaN,
      });
      console.error(
        `  writes at ${subject.size}: 50 clients ours ${ours.perSecond.toFixed(0)}, SQLite ${peerMany?.perSecond.toFixed(0) ?? '—'}; one client ours ${one.perSecond.toFixed(0)}, SQLite ${peerOne?.perSecond.toFixed(0) ?? '—'} req/s`,
      );
    }
    console.error(`write round ${round + 1} of ${ROUNDS}`);
  }
}

function printTables(): void {
  const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
  const local = (s: Subject) => medianFigures(inProcess.of(s));
  const http = (s: Subject) => medianFigures(mutations.of(s));
  const journal = subjects.filter((subject) => subject.store === 'journal');
  console.log(
    `\nLink mutations (associate/disassociate website), 50 concurrent clients, durable (fsync) for the journal, against the first release's whole-file lowdb write (no fsync); medians of ${ROUNDS} rounds`,
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

  // Each ratio is taken within a round, then the median over rounds.
  const ratioOf = (runs: ReadRun[], key: keyof ReadRun, against: keyof ReadRun) => median(runs.map((r) => r[key] / r[against]));
  const getTable = (route: string, runsOf: (s: Subject) => ReadRun[], bytes: (s: Subject) => number) => {
    console.log(
      `\n${route}?transferables=false, 50 concurrent clients: "one" reads one conversation over and over, "spread" every conversation in turn; against the ceiling (a bare Hono route on the same server serving the service's own answer bytes and headers from memory, measured before and after ours) and the SQLite peer (its own process, same @hono/node-server, the answer built per request from its rows; spread); ratios taken per round, medians of ${ROUNDS} rounds`,
    );
    console.log(
      '| conversations | answer bytes | ceiling req/s | one req/s | one ÷ ceiling | spread req/s | spread ÷ ceiling | SQLite spread req/s | spread ÷ SQLite |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const s of journal) {
      const runs = runsOf(s);
      const rate = (key: keyof ReadRun) => fixed(median(runs.map((r) => r[key])), 0);
      console.log(
        `| ${s.size} | ${bytes(s)} | ${rate('ceiling')} | ${rate('hot')} | ${fixed(ratioOf(runs, 'hot', 'ceiling'), 2)} | ${rate('spread')} | ${fixed(ratioOf(runs, 'spread', 'ceiling'), 2)} | ${rate('peerSpread')} | ${fixed(ratioOf(runs, 'spread', 'peerSpread'), 2)} |`,
      );
    }
  };
  getTable(
    'GET /conversation/{id}',
    (s) => gets.of(s),
    (s) => servers.get(s)!.bodyBytes,
  );
  getTable(
    'GET /conversation/{id}/messages',
    (s) => messageGets.of(s),
    (s) => servers.get(s)!.messagesBodyBytes,
  );

  console.log(
    `\nPOST /messages/create?transferables=false, durable (each write waits for its fsync), a 300-character message, 50 concurrent clients and one client at a time, against the SQLite peer's durable inserts (WAL, synchronous=FULL, FTS5 in the transaction; its own process) and a bare Hono route on our server reading the same body with c.req.json(); ratios taken per round, medians of ${ROUNDS} rounds`,
  );
  console.log(
    '| conversations | bare route req/s | ours, 50 clients req/s | ÷ bare | p50 ms | p99 ms | SQLite, 50 clients req/s | ours ÷ SQLite | ours, one client req/s | SQLite, one client req/s | ours ÷ SQLite |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const writeRatio = (runs: WriteRun[], key: keyof WriteRun, against: keyof WriteRun) => median(runs.map((r) => r[key] / r[against]));
  for (const s of journal) {
    const runs = writes.of(s);
    const rate = (key: keyof WriteRun, digits = 0) => fixed(median(runs.map((r) => r[key])), digits);
    console.log(
      `| ${s.size} | ${rate('bare')} | ${rate('create')} | ${fixed(writeRatio(runs, 'create', 'bare'), 2)} | ${rate('p50')} | ${rate('p99')} | ${rate('peer')} | ${fixed(writeRatio(runs, 'create', 'peer'), 2)} | ${rate('one')} | ${rate('peerOne')} | ${fixed(writeRatio(runs, 'one', 'peerOne'), 2)} |`,
    );
  }

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
  recordStoreTargets(journal);
}

/** The stores' rows of the targets table, at the largest size (and link writes at 3,000, or the size nearest it). */
function recordStoreTargets(journal: Subject[]): void {
  const largest = journal.at(-1);
  if (!largest) return;
  const rate = (value: number) => `${count(value)}/s`;
  const at = `${count(largest.size)} conversations`;
  for (const [order, route, runs] of [
    [10, 'GET /conversation/{id}', gets.of(largest)],
    [11, 'GET /conversation/{id}/messages', messageGets.of(largest)],
  ] as const) {
    const ratio = median(runs.map((r) => r.hot / r.ceiling));
    recordTarget({
      order,
      target: `cached read, ${route}, one conversation (${at})`,
      ours: rate(median(runs.map((r) => r.hot))),
      against: `the ceiling (its bytes from memory, same server) ${rate(median(runs.map((r) => r.ceiling)))}`,
      ratio: `×${ratio.toFixed(2)}`,
      goal: '≥ ×0.9',
      met: ratio >= 0.9,
    });
  }
  for (const [order, route, runs] of [
    [20, 'GET /conversation/{id}', gets.of(largest)],
    [21, 'GET /conversation/{id}/messages', messageGets.of(largest)],
  ] as const) {
    const ratio = median(runs.map((r) => r.spread / r.peerSpread));
    recordTarget({
      order,
      target: `uncached read, ${route}, spread over ${at}`,
      ours: rate(median(runs.map((r) => r.spread))),
      against: `SQLite peer ${rate(median(runs.map((r) => r.peerSpread)))} (the ceiling ${rate(median(runs.map((r) => r.ceiling)))})`,
      ratio: Number.isFinite(ratio) ? `×${ratio.toFixed(2)}` : '—',
      goal: '≥ ×1.0',
      ...(Number.isFinite(ratio) ? { met: ratio >= 1 } : {}),
    });
  }
  const w = writes.of(largest);
  const many = median(w.map((r) => r.create / r.peer));
  recordTarget({
    order: 30,
    target: `durable POST /messages/create, 50 concurrent clients (${at})`,
    ours: rate(median(w.map((r) => r.create))),
    against: `SQLite peer ${rate(median(w.map((r) => r.peer)))}`,
    ratio: Number.isFinite(many) ? `×${many.toFixed(2)}` : '—',
    goal: '≥ ×2',
    ...(Number.isFinite(many) ? { met: many >= 2 } : {}),
  });
  const one = median(w.map((r) => r.one / r.peerOne));
  recordTarget({
    order: 31,
    target: `durable POST /messages/create, one client at a time (${at})`,
    ours: rate(median(w.map((r) => r.one))),
    against: `SQLite peer ${rate(median(w.map((r) => r.peerOne)))}`,
    ratio: Number.isFinite(one) ? `×${one.toFixed(2)}` : '—',
    goal: '≥ ×1.0',
    ...(Number.isFinite(one) ? { met: one >= 1 } : {}),
  });
  // Link writes: at 3,000 conversations (the size nearest it), and p50 there against at the smallest.
  const links = [...journal].sort((a, b) => Math.abs(a.size - 3000) - Math.abs(b.size - 3000))[0]!;
  const smallest = journal[0]!;
  const linkRate = median(mutations.of(links).map((r) => r.perSecond));
  recordTarget({
    order: 40,
    target: `link writes over HTTP, 50 clients, durable (${count(links.size)} conversations)`,
    ours: rate(linkRate),
    against: `the first release's whole-file lowdb ${rate(median(mutations.of(subjects.find((s) => s.store === 'naive' && s.size === links.size)!).map((r) => r.perSecond)))}`,
    ratio: '',
    goal: '≥ 3,000/s',
    met: linkRate >= 3000,
  });
  if (links !== smallest) {
    const p50 = (s: Subject) => median(mutations.of(s).map((r) => r.p50));
    const flat = p50(links) / Math.max(p50(smallest), 1);
    recordTarget({
      order: 41,
      target: `link writes p50, ${count(links.size)} against ${count(smallest.size)} conversations`,
      ours: `${p50(links)} ms`,
      against: `ours at ${count(smallest.size)}: ${p50(smallest)} ms`,
      ratio: `×${flat.toFixed(2)}`,
      goal: '≤ ×1.5',
      met: flat <= 1.5,
    });
  }
}

/** Stops the servers and removes the stores, before the next sections start. */
async function removeStores(): Promise<void> {
  const children = [...servers.values(), ...peers.values()];
  for (const { child } of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(({ child }) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)),
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
// while two other jobs used it too (load average 5–7): 29 min 20 s in all; the stores', open and
// search sections from the run of 2026-11-28 with the SQLite peer (load average 8–16).
const SECTIONS: Section[] = [
  {
    group: 'stores',
    title: `stores: build ${sizes} conversations, and the SQLite peer's`,
    seconds: 52,
    knobs: ['BENCH_SIZES'],
    run: buildStores,
  },
  {
    group: 'open',
    title: `open: first answer and RSS at ${OPEN_SIZES.map((size) => size.toLocaleString('en-US')).join(', ')} conversations, ${ROUNDS} rounds`,
    seconds: 239,
    knobs: ['BENCH_OPEN_SIZES', 'BENCH_ROUNDS'],
    run: openSection,
  },
  {
    group: 'stores',
    title: `stores: link mutations in-process, ${ROUNDS} rounds`,
    seconds: 181,
    knobs: [...STORE_KNOBS, 'BENCH_DURATION_MS'],
    run: inProcessRounds,
  },
  {
    group: 'stores',
    title: `stores: link mutations, GET a conversation and its messages over HTTP against the ceiling and SQLite, ${ROUNDS} rounds`,
    seconds: 466,
    knobs: [...STORE_KNOBS, 'BENCH_SECONDS'],
    run: httpRounds,
  },
  {
    group: 'stores',
    title: `stores: durable POST /messages/create over HTTP against SQLite, ${ROUNDS} rounds`,
    seconds: 175,
    knobs: [...STORE_KNOBS, 'BENCH_SECONDS'],
    run: async () => {
      await writeRounds();
      printTables();
    },
  },
  {
    group: 'search',
    title: 'search, and FTS5 beside it (bench/search.ts)',
    seconds: 647,
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

// `sqlite` is no section: it leaves the SQLite peer out of every section.
const GROUPS = new Set([...SECTIONS.map((section) => section.group), 'sqlite']);
const unknown = [...skip].filter((group) => !GROUPS.has(group));
if (unknown.length > 0) {
  console.error(`BENCH_SKIP names ${unknown.join(', ')}: the sections are ${[...GROUPS].join(', ')}`);
  process.exit(2);
}
try {
  if (!(await runSections(SECTIONS, { skip, afterGroup: { stores: removeStores } }))) process.exitCode = 1;
  printTargets(TARGETS_FILE);
} finally {
  await rm(TARGETS_FILE, { force: true });
}
