/**
 * The parts of `npm run bench:postgres` (bench/postgres.ts says what each measures), and the run
 * of them: loaded only once PostgreSQL's binaries are known to be there.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent } from 'node:http';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createJsonFileRepository, createService } from '../src/index.js';
import { createPostgresRepository } from '../src/stores/postgres/index.js';
import { findPostgres, type RunningServer, startPostgres } from '../test/helpers/postgres-server.js';
import { WRITE_BODY } from './build-store.js';
import { type Answer, send } from './http-client.js';
import { devChats, skippedForData } from './outside-data.js';
import { OPTIONS, PART_SECONDS, type StoreArgs, storeArgs, storeLabel } from './postgres-options.js';
import { readDevChats } from './quality/devchats.js';
import { knownItemRun, RECALL_3_TARGET, type RunResult } from './search-quality.js';
import { runSections, type Section } from './sections.js';
import { percentile } from './stats.js';
import { conversationId } from './store-format4.js';
import { answer, fixed, folderBytes, killChildren, type Line, MB, ratio, runChild } from './store-run.js';
import { fillStore, MESSAGES_PER_CONVERSATION } from './text-store.js';
import { benchChats, queries } from './texts.js';

const CHILD = path.resolve(import.meta.dirname, 'postgres-child.ts');
const TARGETS = { searchP50: 10, searchP95: 30, appendGrowth: 2, recall3: RECALL_3_TARGET, recallGap: 0.02 };
const SCHEMA = 'bench';

/** What the parts share: the server, the stores, and the figures the summary repeats. */
const state: {
  postgres?: RunningServer;
  root?: string;
  json?: StoreArgs;
  pg?: StoreArgs;
  summary: string[];
  /** Requests answered with an error (not 2xx, a connection error, a timeout) and writes that threw, in every part. */
  failed: number;
} = { summary: [], failed: 0 };
const { chats, source } = benchChats();
const log = (line: string) => console.error(line);

/** The stores, or an error saying why the part cannot run. */
function stores(): { json: StoreArgs; pg: StoreArgs } {
  if (!state.json || !state.pg) throw new Error('the stores were not built (see the first part)');
  return { json: state.json, pg: state.pg };
}

// ---------------------------------------------------------------------------------------------
// Children: bench/postgres-child.ts, answering JSON lines.

/** Runs a child to its end; answers its line with `key`, or throws saying why there is none. */
async function childLine(args: string[], key: string, timeoutMs: number): Promise<Line> {
  const result = await runChild(args, timeoutMs, { script: CHILD });
  const line = answer(result, key, timeoutMs);
  if (typeof line === 'string') throw new Error(`postgres-child ${args[0]}: ${line}`);
  return line;
}

/** A serving child: its first line (port, open time, search), and how to stop it. */
interface Server {
  readonly port: number;
  readonly line: Line;
  stop(): Promise<void>;
}

/** Starts `serve` on `store`; resolves once it listens. */
function startServer(store: StoreArgs): Promise<Server> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess | undefined;
    const ended = runChild(['serve', ...storeArgs(store)], 15 * 60_000, {
      script: CHILD,
      onLine: (line, started) => {
        child = started;
        if ('error' in line) return;
        resolve({
          port: Number(line.port),
          line,
          stop: async () => {
            child?.kill('SIGTERM');
            await ended;
          },
        });
      },
    });
    ended.then((result) => reject(new Error(`serve ${storeLabel(store)}: ${answer(result, 'port', 0)}`)), reject);
  });
}

// ---------------------------------------------------------------------------------------------
// 1. The stores.

async function buildStores(): Promise<void> {
  const found = findPostgres(OPTIONS.bin);
  if ('missing' in found) throw new Error(found.missing);
  state.root = await mkdtemp(path.join(tmpdir(), 'cms-bench-pg-'));
  const t0 = performance.now();
  state.postgres = await startPostgres(found.bin, ['shared_buffers=128MB']);
  const startS = (performance.now() - t0) / 1000;
  log(`  PostgreSQL on 127.0.0.1:${state.postgres.server.port}, data in ${state.postgres.folder}`);
  const count = OPTIONS.conversations;

  const dir = path.join(state.root, 'json');
  const t1 = performance.now();
  const json = await createJsonFileRepository({ file: path.join(dir, 'db.json'), durability: 'unsafe-no-fsync' });
  const { textChars } = await fillStore(json, count, chats);
  const jsonWriteS = (performance.now() - t1) / 1000;
  await json.close();
  const jsonS = (performance.now() - t1) / 1000;
  state.json = { dir };
  log(`  JSON-file store built in ${fixed(jsonS, 1)} s`);

  const t2 = performance.now();
  const pg = await createPostgresRepository({ connectionString: state.postgres.server.url }, { schema: SCHEMA });
  await fillStore(pg, count, chats, 4);
  await pg.close();
  const pgS = (performance.now() - t2) / 1000;
  state.pg = { url: state.postgres.server.url, schema: SCHEMA };
  log(`  PostgreSQL filled in ${fixed(pgS, 1)} s`);
  // What autovacuum does within a minute or two of a bulk load (statistics, and the visibility map
  // that lets index-only scans skip the table): measured in the state a running database is in.
  const t3 = performance.now();
  await vacuum(state.postgres.server.url);
  const vacuumS = (performance.now() - t3) / 1000;
  log(`  PostgreSQL vacuumed and analyzed in ${fixed(vacuumS, 1)} s`);
  const { bytes: pgBytes, version } = await databaseFacts(state.postgres.server.url, SCHEMA);

  console.log(
    `\n1. The stores: ${count} conversations × ${MESSAGES_PER_CONVERSATION} messages of 250–350 characters (${fixed(textChars / 1e6, 1)} M characters), texts from ${source}; PostgreSQL ${version} started in ${fixed(startS, 1)} s`,
  );
  console.log('| store | filled by | fill s | size MB |');
  console.log('|---|---|---|---|');
  console.log(
    `| JSON file | its transactions, 100 conversations each, no fsync (durability: unsafe-no-fsync), then close (${fixed(jsonWriteS, 1)} s + close) | ${fixed(jsonS, 1)} | ${fixed((await folderBytes(dir)) / MB)} (folder) |`,
  );
  console.log(
    `| PostgreSQL | its transactions, 100 conversations each, 4 at a time, durable (fsync on); then VACUUM (ANALYZE), ${fixed(vacuumS, 1)} s, not counted | ${fixed(pgS, 1)} | ${fixed(pgBytes / MB)} (schema: tables and indexes) |`,
  );
  state.summary.push(`| fill ${count} × ${MESSAGES_PER_CONVERSATION} | ${fixed(pgS, 1)} s | ${fixed(jsonS, 1)} s (no fsync) | | |`);
}

/** `VACUUM (ANALYZE)` of the database at `url`. */
async function vacuum(url: string): Promise<void> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

/** Bytes of the tables and indexes of `schema`, and the server's version. */
async function databaseFacts(url: string, schema: string): Promise<{ bytes: number; version: string }> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ($2, $3)',
      [schema, 'r', 'S'],
    );
    const version = await client.query('show server_version');
    return { bytes: Number(rows[0].bytes), version: String(version.rows[0].server_version) };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Reads over HTTP: GET a conversation, and search.

interface ReadFigures {
  readonly store: string;
  readonly search: string;
  readonly openMs: number;
  readonly gets: Answer[];
  readonly firstSearchMs: number;
  readonly searches: Map<string, Answer[]>;
}

const SEARCH_ROUTES = ['/conversations/search', '/messages/search'] as const;

async function readsOf(store: StoreArgs): Promise<ReadFigures> {
  const server = await startServer(store);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const count = OPTIONS.conversations;
    // A stride coprime with the count visits every conversation once per pass, each far from the last.
    let stride = Math.max(1, Math.floor(count * 0.618));
    while (gcd(stride, count) !== 1) stride++;
    const get = (i: number) => send(agent, server.port, 'GET', `/conversation/${conversationId((i * stride) % count)}?transferables=false`);
    // Warm-up, not measured: compiles the read path (other conversations than the measured ones, mostly).
    for (let i = 0; i < 100; i++) await get(count - 1 - i);
    const gets: Answer[] = [];
    const deadline = performance.now() + 2 * OPTIONS.loadMs;
    for (let i = 0; i < OPTIONS.gets && performance.now() < deadline; i++) gets.push(await get(i));

    const body = (query: string) => JSON.stringify({ engines: { iterable: [{ query }] } });
    const first = await send(agent, server.port, 'POST', SEARCH_ROUTES[0], body('install'));
    if (first.status !== 200) throw new Error(`the first search answered ${first.status}`);
    for (const query of queries(chats, 30, 99))
      for (const route of SEARCH_ROUTES) await send(agent, server.port, 'POST', route, body(query));
    const searches = new Map<string, Answer[]>(SEARCH_ROUTES.map((route) => [route, []]));
    for (const [i, query] of queries(chats, OPTIONS.queries, 7).entries()) {
      // Each turn sends the query to both routes, starting with each in turn.
      for (const route of i % 2 === 0 ? SEARCH_ROUTES : [...SEARCH_ROUTES].reverse())
        searches.get(route)!.push(await send(agent, server.port, 'POST', route, body(query)));
    }
    return {
      store: storeLabel(store),
      search: String(server.line.search),
      openMs: Number(server.line.openMs),
      gets,
      firstSearchMs: first.ms,
      searches,
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

async function reads(): Promise<void> {
  const { json, pg } = stores();
  const figures = [await readsOf(json), await readsOf(pg)];
  const ms = (answers: Answer[]) => answers.map((a) => a.ms);
  const failed = (answers: Answer[]) => answers.filter((a) => a.status !== 200).length;
  console.log(
    `\n2a. GET /conversation/{id}?transferables=false over HTTP (the Hono adapter on 127.0.0.1, a process of its own), one request at a time over a kept-alive connection, spread over all ${OPTIONS.conversations} conversations, after 100 unmeasured`,
  );
  console.log('| store | opened in ms | requests | p50 ms | p99 ms | mean answer KB | not 200 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const f of figures)
    console.log(
      `| ${f.store} | ${fixed(f.openMs)} | ${f.gets.length} | ${fixed(percentile(ms(f.gets), 0.5), 2)} | ${fixed(percentile(ms(f.gets), 0.99), 2)} | ${fixed(f.gets.reduce((s, a) => s + a.bytes, 0) / f.gets.length / 1024, 1)} | ${failed(f.gets)} |`,
    );
  for (const f of figures) state.failed += failed(f.gets) + failed([...f.searches.values()].flat());
  const [j, p] = figures as [ReadFigures, ReadFigures];
  const q = (f: ReadFigures, quantile: number) => percentile(ms(f.gets), quantile);
  console.log(`PostgreSQL / JSON file: p50 ${ratio(q(p, 0.5), q(j, 0.5))}, p99 ${ratio(q(p, 0.99), q(j, 0.99))}.`);
  state.summary.push(
    `| GET /conversation/{id} p50 / p99, one client | ${fixed(q(p, 0.5), 2)} / ${fixed(q(p, 0.99), 2)} ms | ${fixed(q(j, 0.5), 2)} / ${fixed(q(j, 0.99), 2)} ms | | p50 ${ratio(q(p, 0.5), q(j, 0.5))} the JSON file's |`,
  );

  console.log(
    `\n2b. Search over HTTP: ${OPTIONS.queries} queries of 1, 2 and 3 words drawn by frequency from the stored texts (seed 7), each sent to both routes (default limit 20, transferables on, as the client sends them), one at a time over a kept-alive connection, after 30 unmeasured; the first search is timed alone (PostgreSQL without a native search builds the in-memory index then)`,
  );
  console.log(
    `| store | searched by | first search ms | route | requests | p50 ms | p95 ms | p99 ms | target p50 ≤ ${TARGETS.searchP50}, p95 ≤ ${TARGETS.searchP95} | not 200 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const verdict = (answers: Answer[]) => {
    const [p50, p95] = [percentile(ms(answers), 0.5), percentile(ms(answers), 0.95)];
    return `${p50 <= TARGETS.searchP50 ? 'met' : 'NOT met'}, ${p95 <= TARGETS.searchP95 ? 'met' : 'NOT met'}`;
  };
  for (const f of figures) {
    const all = [...f.searches.values()].flat();
    for (const [route, answers] of [...f.searches.entries(), ['both', all] as const])
      console.log(
        `| ${route === SEARCH_ROUTES[0] ? f.store : ''} | ${route === SEARCH_ROUTES[0] ? f.search : ''} | ${route === SEARCH_ROUTES[0] ? fixed(f.firstSearchMs) : ''} | ${route} | ${answers.length} | ${fixed(percentile(ms(answers), 0.5), 2)} | ${fixed(percentile(ms(answers), 0.95), 2)} | ${fixed(percentile(ms(answers), 0.99), 2)} | ${verdict(answers)} | ${failed(answers)} |`,
      );
  }
  const both = (f: ReadFigures) => ms([...f.searches.values()].flat());
  console.log(
    `PostgreSQL / JSON file, both routes: p50 ${ratio(percentile(both(p), 0.5), percentile(both(j), 0.5))}, p95 ${ratio(percentile(both(p), 0.95), percentile(both(j), 0.95))}.`,
  );
  state.summary.push(
    `| search p50 / p95, both routes (PostgreSQL searched by: ${p.search}) | ${fixed(percentile(both(p), 0.5), 2)} / ${fixed(percentile(both(p), 0.95), 2)} ms | ${fixed(percentile(both(j), 0.5), 2)} / ${fixed(percentile(both(j), 0.95), 2)} ms | ≤ ${TARGETS.searchP50} / ≤ ${TARGETS.searchP95} ms | ${verdict([...p.searches.values()].flat())} |`,
  );
}

// ---------------------------------------------------------------------------------------------
// 3. Durable writes.

async function writes(): Promise<void> {
  const { json, pg } = stores();
  const timeout = OPTIONS.loadMs + 180_000;
  const runs: [string, Line][] = [];
  for (const store of [json, pg]) {
    const line = await childLine(['writes', ...storeArgs(store), '--count', String(OPTIONS.conversations)], 'writes', timeout);
    log(`  writes, ${storeLabel(store)}: ${fixed(Number(line.opsPerSecond))}/s`);
    runs.push([storeLabel(store), line]);
    state.failed += Number(line.errors);
  }
  console.log(
    `\n3. Durable writes: ${OPTIONS.writers} concurrent writers in one process, each createMessage (about 300 characters) into its own conversation of the ${OPTIONS.conversations}-conversation store, for ${OPTIONS.loadMs / 1000} s after one unmeasured write each; fsync on (the JSON file's default; PostgreSQL's commit)`,
  );
  console.log('| store | writes | writes/s | p50 ms | p99 ms | failed |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, line] of runs)
    console.log(
      `| ${label} | ${line.writes} | ${fixed(Number(line.opsPerSecond))} | ${fixed(Number(line.p50), 2)} | ${fixed(Number(line.p99), 2)} | ${line.errors}${line.firstError ? ` (first: ${String(line.firstError)})` : ''} |`,
    );
  const [j, p] = runs.map(([, line]) => Number(line.opsPerSecond)) as [number, number];
  console.log(`Writes/s, PostgreSQL / JSON file: ${ratio(p, j)}.`);
  state.summary.push(`| durable writes/s, ${OPTIONS.writers} writers | ${fixed(p)} | ${fixed(j)} | | ${ratio(p, j)} the JSON file's |`);
}

// ---------------------------------------------------------------------------------------------
// 4. Appends.

async function appends(): Promise<void> {
  if (!state.root || !state.postgres) throw new Error('the stores were not built (see the first part)');
  const subjects: StoreArgs[] = [{ dir: path.join(state.root, 'append') }, { url: state.postgres.server.url, schema: 'append' }];
  const points = new Map<string, Line>();
  for (const store of subjects) {
    const result = await runChild(['append', ...storeArgs(store)], 240_000, {
      script: CHILD,
      onLine: (line) => {
        if (!('messages' in line)) return;
        points.set(`${storeLabel(store)}/${String(line.messages)}`, line);
        log(`  appends, ${storeLabel(store)}, ${String(line.messages)} messages: ${fixed(Number(line.msPerAppend), 2)} ms per append`);
      },
    });
    if (result.code !== 0) throw new Error(`append ${storeLabel(store)}: ${answer(result, 'messages', 240_000)}`);
  }
  const msAt = (label: string, messages: number) => Number(points.get(`${label}/${messages}`)?.msPerAppend ?? NaN);
  const cell = (label: string, messages: number, key: string) => {
    const line = points.get(`${label}/${messages}`);
    return line === undefined ? '—' : 'error' in line ? String(line.error) : fixed(Number(line[key]), 2);
  };
  console.log(
    `\n4. Appends: createMessage (durable) to one conversation, timed over the last 100 appends before it holds the given number of messages (it is created with the rest in one createConversation); median of ${OPTIONS.appendRepeats} conversations; a fresh store of each kind`,
  );
  console.log(
    '| messages in the conversation | JSON file ms per append | p99 ms | PostgreSQL ms per append | p99 ms | PostgreSQL / JSON file |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const messages of OPTIONS.checkpoints)
    console.log(
      `| ${messages} | ${cell('JSON file', messages, 'msPerAppend')} | ${cell('JSON file', messages, 'p99')} | ${cell('PostgreSQL', messages, 'msPerAppend')} | ${cell('PostgreSQL', messages, 'p99')} | ${ratio(msAt('PostgreSQL', messages), msAt('JSON file', messages))} |`,
    );
  const [first, last] = [OPTIONS.checkpoints[0]!, OPTIONS.checkpoints.at(-1)!];
  if (first !== last) {
    const growth = (label: string) => msAt(label, last) / msAt(label, first);
    const pg = growth('PostgreSQL');
    const met = pg <= TARGETS.appendGrowth ? 'met' : 'NOT met';
    console.log(
      `ms per append at ${last} ÷ at ${first} messages: PostgreSQL ×${fixed(pg, 2)} (target ≤ ${TARGETS.appendGrowth}: ${met}), JSON file ×${fixed(growth('JSON file'), 2)}.`,
    );
    state.summary.push(
      `| append at ${last} ÷ at ${first} messages | ×${fixed(pg, 2)} (${fixed(msAt('PostgreSQL', last), 2)} ÷ ${fixed(msAt('PostgreSQL', first), 2)} ms) | ×${fixed(growth('JSON file'), 2)} (${fixed(msAt('JSON file', last), 2)} ÷ ${fixed(msAt('JSON file', first), 2)} ms) | ≤ ${TARGETS.appendGrowth} | ${met} |`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// 5. Instances.

interface Load {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
}

/** The mixed load on one server: `connections`, each sending three GETs then one durable POST, for OPTIONS.loadMs. */
async function mixedLoad(port: number, connections: number, offset: number): Promise<Load> {
  const count = OPTIONS.conversations;
  let n = offset;
  const spread = () => conversationId((n++ * 7919) % count);
  const get = {
    method: 'GET' as const,
    setupRequest: (request: object) => ({ ...request, path: `/conversation/${spread()}?transferables=false` }),
  };
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: OPTIONS.loadMs / 1000,
    requests: [
      get,
      get,
      get,
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          path: '/messages/create?transferables=false',
          headers: { ...request.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ ...WRITE_BODY, conversation: { id: spread() } }),
        }),
      },
    ],
  });
  return {
    requests: result.requests.total,
    perSecond: result.requests.total / (OPTIONS.loadMs / 1000),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/** `servers` started on `store`, the load spread over them at once; answers the total. */
async function loadOn(store: StoreArgs, count: number): Promise<Load & { servers: number }> {
  const servers = await Promise.all(Array.from({ length: count }, () => startServer(store)));
  try {
    const connections = Math.max(1, Math.floor(OPTIONS.connections / count));
    const loads = await Promise.all(servers.map((server, i) => mixedLoad(server.port, connections, i * 1_000_003)));
    const total = loads.reduce((sum, load) => sum + load.requests, 0);
    // Latency over every server's requests: their percentiles weighed by how many each answered.
    const weighed = (key: 'p50' | 'p99') => loads.reduce((sum, load) => sum + load[key] * load.requests, 0) / Math.max(1, total);
    return {
      servers: count,
      requests: total,
      perSecond: loads.reduce((sum, load) => sum + load.perSecond, 0),
      p50: weighed('p50'),
      p99: weighed('p99'),
      failed: loads.reduce((sum, load) => sum + load.failed, 0),
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function instances(): Promise<void> {
  const { json, pg } = stores();
  const runs: (Load & { servers: number; label: string })[] = [];
  for (const count of OPTIONS.instances) {
    const load = await loadOn(pg, count);
    log(`  ${count} PostgreSQL instance(s): ${fixed(load.perSecond)} requests/s`);
    runs.push({ ...load, label: 'PostgreSQL' });
  }
  const single = await loadOn(json, 1);
  log(`  the JSON-file store's process: ${fixed(single.perSecond)} requests/s`);
  runs.push({ ...single, label: 'JSON file' });
  for (const run of runs) state.failed += run.failed;
  const one = runs.find((run) => run.label === 'PostgreSQL' && run.servers === 1);
  console.log(
    `\n5. Throughput of instances: service processes on the one store, each serving HTTP (started afresh for each count), and ${OPTIONS.connections} connections in all spread evenly over them for ${OPTIONS.loadMs / 1000} s, each sending in turn three GET /conversation/{id}?transferables=false and one durable POST /messages/create (300 characters), spread over every conversation (autocannon, in the benchmark's process); this machine has ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), which the instances, PostgreSQL and the load share`,
  );
  console.log('| store | instances | requests | requests/s in all | ÷ one PostgreSQL instance | p50 ms | p99 ms | failed |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const run of runs)
    console.log(
      `| ${run.label} | ${run.servers} | ${run.requests} | ${fixed(run.perSecond)} | ${one ? ratio(run.perSecond, one.perSecond) : '—'} | ${fixed(run.p50)} | ${fixed(run.p99)} | ${run.failed} |`,
    );
  const pgRuns = runs.filter((run) => run.label === 'PostgreSQL');
  state.summary.push(
    `| requests/s, mixed load, ${pgRuns.map((run) => run.servers).join(' / ')} instance(s) | ${pgRuns.map((run) => fixed(run.perSecond)).join(' / ')} | ${fixed(single.perSecond)} (its one process) | | ${one ? pgRuns.map((run) => ratio(run.perSecond, one.perSecond)).join(' / ') : '—'} one instance's |`,
  );
}

// ---------------------------------------------------------------------------------------------
// 6. Known-item search.

async function recall(): Promise<void> {
  if (!state.postgres) throw new Error('PostgreSQL was not started (see the first part)');
  const url = state.postgres.server.url;
  const known = await readDevChats(devChats().file);
  const results: { store: string; search: string; run: RunResult }[] = [];
  let pgSearch = '';
  for (const rename of [false, true]) {
    results.push({ store: 'embedded index (in memory)', search: 'its own index', run: await knownItemRun(known, rename) });
    const schema = `recall_${rename ? 'b' : 'a'}`;
    const run = await knownItemRun(known, rename, async () => {
      const repository = await createPostgresRepository({ connectionString: url }, { schema });
      pgSearch = repository.search ? 'native' : 'in-memory index (withSearch)';
      return createService({ repository });
    });
    results.push({ store: 'PostgreSQL', search: pgSearch, run });
  }
  const f = (x: number) => x.toFixed(3);
  console.log(
    `\n6. Known-item search: each of the ${known.length} developer chats stored without its title, then found by its title (bench/search-quality.ts: searchConversations, limit 10); over a service on PostgreSQL and over the embedded index, same run`,
  );
  console.log(
    `| run | store | searched by | recall@1 | recall@3 | recall@10 | MRR@10 | search p50 ms | p95 ms | target recall@3 ≥ ${TARGETS.recall3} |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const { store, search, run } of results)
    console.log(
      `| ${store === 'PostgreSQL' ? '' : run.label} | ${store} | ${search} | ${f(run.ours.recall1)} | ${f(run.ours.recall3)} | ${f(run.ours.recall10)} | ${f(run.ours.mrr)} | ${fixed(run.searchP50, 2)} | ${fixed(run.searchP95, 2)} | ${run.ours.recall3 >= TARGETS.recall3 ? 'met' : 'NOT met'} |`,
    );
  for (let i = 0; i < results.length; i += 2) {
    const [embedded, pg] = [results[i]!.run, results[i + 1]!.run];
    const gap = pg.ours.recall3 - embedded.ours.recall3;
    const met = pg.ours.recall3 >= TARGETS.recall3 && Math.abs(gap) <= TARGETS.recallGap;
    console.log(
      `${embedded.label}: recall@3 on PostgreSQL ${f(pg.ours.recall3)}, embedded ${f(embedded.ours.recall3)}, difference ${gap >= 0 ? '+' : ''}${f(gap)} (targets ≥ ${TARGETS.recall3} and within ${TARGETS.recallGap}: ${met ? 'met' : 'NOT met'}).`,
    );
    state.summary.push(
      `| known-item recall@3, ${embedded.label.split(' (')[0]} | ${f(pg.ours.recall3)} | ${f(embedded.ours.recall3)} (embedded index) | ≥ ${TARGETS.recall3}, within ${TARGETS.recallGap} | ${met ? 'met' : 'NOT met'} |`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

function cleanUp(): void {
  killChildren();
  state.postgres?.stop();
  state.postgres = undefined;
  if (state.root) rmSync(state.root, { recursive: true, force: true });
  state.root = undefined;
}

const KNOBS = ['BENCH_PG_CONVERSATIONS', 'BENCH_PG_SECONDS'];
const SECTIONS: Section[] = [
  {
    group: 'stores',
    title: `start PostgreSQL, build the stores: ${OPTIONS.conversations.toLocaleString('en-US')} conversations × ${MESSAGES_PER_CONVERSATION} messages each`,
    seconds: PART_SECONDS.stores,
    knobs: ['BENCH_PG_CONVERSATIONS'],
    run: buildStores,
  },
  {
    group: 'reads',
    title: 'GET a conversation and search over HTTP, both stores',
    seconds: PART_SECONDS.reads,
    knobs: [...KNOBS, 'BENCH_PG_GETS', 'BENCH_PG_QUERIES'],
    run: reads,
  },
  {
    group: 'writes',
    title: `durable writes, ${OPTIONS.writers} writers, both stores`,
    seconds: PART_SECONDS.writes,
    knobs: [...KNOBS, 'BENCH_PG_WRITERS'],
    run: writes,
  },
  {
    group: 'append',
    title: `appends at ${OPTIONS.checkpoints.join(' and ')} messages, both stores`,
    seconds: PART_SECONDS.append,
    knobs: ['BENCH_PG_MESSAGES', 'BENCH_PG_APPEND_REPEATS'],
    run: appends,
  },
  {
    group: 'instances',
    title: `throughput of ${OPTIONS.instances.join(', ')} PostgreSQL instances and of the JSON-file store's process`,
    seconds: PART_SECONDS.instances,
    knobs: [...KNOBS, 'BENCH_PG_INSTANCES'],
    run: instances,
  },
  {
    group: 'recall',
    title: 'known-item search on the developer chats, PostgreSQL and the embedded index',
    seconds: PART_SECONDS.recall,
    unmet: () => skippedForData(undefined, devChats()),
    run: recall,
  },
];

/**
 * Runs the parts (the caller has checked that PostgreSQL's binaries are there), printing the plan
 * first and the summary last; stops the server and removes every folder at the end, on a failure,
 * or on Ctrl-C. Answers whether every part that ran succeeded.
 */
export async function runPostgresBench(): Promise<boolean> {
  const interrupted = () => {
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  console.log(`bench:postgres, ${new Date().toISOString()}, Node ${process.version}, ${availableParallelism()} CPUs`);
  try {
    const ok = await runSections(SECTIONS, {
      name: 'npm run bench:postgres',
      skip: OPTIONS.skip,
      skipVariable: 'BENCH_PG_SKIP',
    });
    if (state.summary.length > 0) {
      console.log('\nSummary: PostgreSQL beside the JSON-file store, this run');
      console.log('| figure | PostgreSQL | JSON file | target | met, or against |');
      console.log('|---|---|---|---|---|');
      for (const row of state.summary) console.log(row);
      console.log(`Requests that failed (not 2xx, a connection error, a timeout) and writes that threw, in every part: ${state.failed}.`);
    }
    return ok;
  } finally {
    cleanUp();
  }
}
