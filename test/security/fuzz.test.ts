/**
 * A bounded, seeded fuzz of the HTTP server (`startHttpServer`) over every route of the README's
 * table, plus unknown paths and methods. It proves that, whatever a local client sends:
 *
 * - no answer is a 5xx (a 5xx means a bug in the service or the adapter),
 * - no connection is dropped: every request gets a whole HTTP answer, even a 300 KB body sent to a
 *   route that reads none, a body over the limit, or a body still being written when the server
 *   answers (a server that answers `Connection: close` and closes is fine; one that cuts the
 *   client off mid-request is not), and no request goes unanswered for 10 s,
 * - the server still answers afterwards, and the store is consistent: both sides of every link
 *   agree (over HTTP and in the stored records), and the data folder reopens with the same records;
 *   files beside the data folder are untouched.
 *
 * Requests go over node:http with a keep-alive agent (4 sockets), so connections are reused after
 * every kind of answer. Request #i is drawn from its own generator seeded by (seed, i): the real
 * ids it names can vary with timing (creates add ids to the pool), nothing else does.
 *
 * Knobs: FUZZ_SEED (default 20260101), FUZZ_REQUESTS (default 1500), FUZZ_SECONDS (wall-clock cap
 * of the fuzz phase, default 40; it stops early when reached), FUZZ_VERBOSE=1 (statuses by route
 * and body kind, to see what the fuzz reached), FUZZ_SHOWN (failures printed in full per kind,
 * default 8).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { format } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../../adapters/hono/serve.js';
import { createJsonFileRepository, createService, type LinkKind, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { said, seededModel, seeds } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  type BodyKind,
  consistencyProblems,
  contentType,
  deepBody,
  emptyPool,
  excerpt,
  type FuzzRequest,
  fillPath,
  hugeArrayBody,
  type IdPool,
  idSegment,
  malformedJson,
  mutatedBody,
  type Outcome,
  paddedJson,
  queryString,
  Random,
  ROUTES,
  type Route,
  randomBytes,
  randomJson,
  readStore,
  requestSeed,
  send,
  storedRelationProblems,
  unknownPath,
  validBody,
} from './fuzz-helpers.js';

const envNumber = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) ? value : fallback;
};

const SEED = envNumber('FUZZ_SEED', 20260101);
const REQUESTS = envNumber('FUZZ_REQUESTS', 1500);
const TIME_CAP_MS = envNumber('FUZZ_SECONDS', 40) * 1000;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 256 * 1024;
/** As many workers as the agent has sockets, so every socket is kept busy and reused. */
const CONCURRENCY = 4;
/** Failures printed in full per category; the rest are only counted. */
const SHOWN = Number(process.env.FUZZ_SHOWN ?? 8);

const BODY_KINDS: BodyKind[] = [
  'conversation',
  'message',
  'update',
  'summarize',
  'scores',
  'model',
  'deleteCache',
  'anchor',
  'asset',
  'website',
  'range',
  'workstreamSummary',
  'annotation',
];

// ---------------------------------------------------------------------------------------------
// The store before the fuzz

/**
 * Conversations with messages, two records of each kind, links of every kind, annotations, a
 * summary and custom models, created in-process: the fuzz's ids are drawn from these.
 */
async function seedStore(service: Service): Promise<IdPool> {
  const pool = emptyPool();
  const conversations = [];
  for (let i = 0; i < 8; i++) {
    const conversation = await service.createConversation({
      type: 'COPILOT',
      name: `Seeded ${i}`,
      messages: [
        said('USER', `Question ${i}: how do I retry a flaky API call?`),
        said('ASSISTANT', 'Back off exponentially, with jitter.'),
      ],
    });
    conversations.push(conversation);
    pool.conversation.push(conversation.id);
    pool.message.push(...conversation.messages.iterable.map((m) => m.id));
  }
  for (let i = 0; i < 2; i++) {
    pool.anchor.push((await service.createAnchor({ ...seeds.anchor, fullpath: `/home/me/seed-${i}.ts` })).id);
    pool.asset.push((await service.createAsset(seeds.asset)).id);
    pool.website.push((await service.createWebsite({ ...seeds.website, url: `https://example.com/seed-${i}` })).id);
    pool.range.push((await service.createRange(seeds.range)).id);
    pool.workstreamSummary.push((await service.createWorkstreamSummary(seeds.workstreamSummary)).id);
    pool.annotation.push((await service.createAnnotation({ ...seeds.annotation, conversation: conversations[i]!.id })).id);
  }
  const links: [LinkKind, string[]][] = [
    ['anchor', pool.anchor],
    ['asset', pool.asset],
    ['website', pool.website],
    ['workstreamSummary', pool.workstreamSummary],
    ['groundingRange', pool.range],
    // A message of the next conversation grounds this one.
    ['groundingMessage', pool.message.filter((_, i) => i % 2 === 0)],
  ];
  for (const [i, conversation] of conversations.entries()) {
    for (const [kind, targets] of links) await service.associate(kind, conversation.id, targets[(i + 1) % targets.length]!);
  }
  pool.annotation.push((await service.summarizeConversation(conversations[3]!.id)).annotation.id);
  pool.model.push((await service.createModel(seededModel({ downloaded: true }))).id);
  pool.model.push((await service.createModel(seededModel({ unique: 'fuzz-ocr', name: 'OCR', usage: 'OCR' }))).id);
  pool.model.push(...(await service.listModels()).iterable.filter((m) => !m.custom).map((m) => m.id));
  return pool;
}

// ---------------------------------------------------------------------------------------------
// Making one request

const OTHER_METHODS = ['PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD'];

/** Request #index: a route (or an unknown path or method), a query, a body and headers. */
function makeRequest(index: number, pool: IdPool, origin: URL): FuzzRequest & { routeOf?: Route } {
  const random = new Random(requestSeed(SEED, index));
  const shape = random.weighted([
    [86, 'route'],
    [8, 'other method'],
    [6, 'unknown path'],
  ] as const);
  let method: string;
  let target: string;
  let chosen: Route | undefined;
  if (shape === 'unknown path') {
    method = random.pick(['GET', 'POST', ...OTHER_METHODS]);
    const form = random.pick(['origin', 'asterisk', 'absolute'] as const);
    if (form === 'origin') target = unknownPath(random) + queryString(random);
    else if (form === 'absolute')
      target = `${origin.origin}/models`; // `GET http://127.0.0.1:port/models HTTP/1.1`
    else {
      method = 'OPTIONS'; // `OPTIONS * HTTP/1.1`
      target = '*';
    }
  } else {
    chosen = random.weighted(ROUTES.map((r) => [r.weight, r] as const));
    target = fillPath(chosen.template, (kind) => idSegment(random, pool, kind)) + queryString(random);
    method = shape === 'route' ? chosen.method : random.pick([...OTHER_METHODS, chosen.method === 'GET' ? 'POST' : 'GET']);
  }

  const { body, bodyKind } =
    chosen?.body && method === 'POST' ? bodyForJsonRoute(chosen.body, random, pool) : bodyForBodylessRoute(random, pool);
  const headers: Record<string, string> = {};
  const type = body !== undefined || random.chance(0.2) ? contentType(random, chosen?.body !== undefined) : undefined;
  if (type !== undefined) headers['content-type'] = type;
  // A few requests look like a browser's, or carry a token nobody asked for.
  if (random.chance(0.04)) headers.origin = random.pick(['null', 'http://evil.example', 'chrome-extension://abcdef', origin.origin]);
  if (random.chance(0.03)) headers['sec-fetch-site'] = random.pick(['cross-site', 'same-site', 'none']);
  if (random.chance(0.02)) headers.authorization = 'Bearer not-a-token';
  if (random.chance(0.02)) headers['content-encoding'] = 'gzip';
  // Host names the DNS-rebinding guard must refuse (or Node must reject as malformed).
  if (random.chance(0.02))
    headers.host = random.pick([
      'evil.example',
      'localhost',
      'localhost:1',
      '127.0.0.2',
      '[::1]:80',
      'LOCALHOST.',
      'a b',
      'localhost@evil.example',
      '[::1',
      'localhost:99999',
    ]);
  // Past Node's 16 KB limit on headers: answered 431 by Node itself.
  if (random.chance(0.01)) headers['x-padding'] = 'p'.repeat(random.int(10_000, 20_000));
  return {
    index,
    method,
    path: target,
    headers,
    body,
    chunked: body !== undefined && body.length > 0 && random.chance(0.2),
    route: chosen ? `${chosen.method} ${chosen.template}` : shape,
    bodyKind,
    routeOf: chosen,
  };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');

/** A body for a route that reads JSON: mostly near-valid, often hostile. */
function bodyForJsonRoute(kind: BodyKind, random: Random, pool: IdPool): { body?: Buffer; bodyKind: string } {
  // Mostly thousands of levels (past any recursive walk's stack); a few around the service's own
  // depth limit (32), where a body is either accepted and stored or refused.
  const depth = random.pick([31, 32, 33, 2000, 2500, 4000, 8000, 20_000, 50_000]);
  return random.weighted<() => { body?: Buffer; bodyKind: string }>([
    [25, () => ({ body: json(validBody(kind, random, pool)), bodyKind: 'valid' })],
    [18, () => ({ body: json(mutatedBody(kind, random, pool)), bodyKind: 'mutated' })],
    [8, () => ({ body: json(randomJson(random)), bodyKind: 'random JSON' })],
    [10, () => ({ body: Buffer.from(malformedJson(random, JSON.stringify(validBody(kind, random, pool)))), bodyKind: 'malformed JSON' })],
    [8, () => ({ body: Buffer.alloc(0), bodyKind: 'empty' })],
    [4, () => ({ body: undefined, bodyKind: 'none' })],
    [9, () => ({ body: Buffer.from(deepBody(kind, random, pool, depth)), bodyKind: `deep JSON (${depth} levels)` })],
    [6, () => ({ body: Buffer.from(hugeArrayBody(kind, random, pool)), bodyKind: 'huge array' })],
    [6, () => ({ body: paddedJson(random, MAX_BODY_BYTES + random.int(1, 150_000)), bodyKind: 'over the limit' })],
    // Big enough to outlast the socket buffers: the server answers 413 while the client still writes.
    [2, () => ({ body: paddedJson(random, random.int(1, 8) * 1024 * 1024), bodyKind: 'far over the limit' })],
    [4, () => ({ body: randomBytes(random, random.int(1, 4096)), bodyKind: 'random bytes' })],
    [2, () => ({ body: json(validBody(random.pick(BODY_KINDS), random, pool)), bodyKind: "another route's body" })],
  ])();
}

/** A body for a route that reads none (or an unknown path or method): mostly none, often large. */
function bodyForBodylessRoute(random: Random, pool: IdPool): { body?: Buffer; bodyKind: string } {
  return random.weighted<() => { body?: Buffer; bodyKind: string }>([
    [50, () => ({ body: undefined, bodyKind: 'none' })],
    [
      18,
      () => {
        const size = random.int(200_000, 400_000);
        return random.chance(0.5)
          ? { body: randomBytes(random, size), bodyKind: `large random bytes (${size})` }
          : { body: paddedJson(random, size), bodyKind: `large JSON (${size})` };
      },
    ],
    [8, () => ({ body: Buffer.alloc(0), bodyKind: 'empty' })],
    [12, () => ({ body: json(randomJson(random)), bodyKind: 'random JSON' })],
    [6, () => ({ body: json(validBody(random.pick(BODY_KINDS), random, pool)), bodyKind: 'a valid body of some route' })],
    [6, () => ({ body: Buffer.from(malformedJson(random, '{"a":[1,2,3]}')), bodyKind: 'malformed JSON' })],
  ])();
}

// ---------------------------------------------------------------------------------------------
// Tallying outcomes

interface Tally {
  sent: number;
  /** Statuses by route and body kind, printed with FUZZ_VERBOSE=1 to see what the fuzz reached. */
  byKind: Map<string, Map<string, number>>;
  statuses: Map<number, number>;
  serverErrors: string[];
  dropped: string[];
  timeouts: string[];
  unsendable: string[];
  reusedSockets: number;
  connectionClose: number;
}

const newTally = (): Tally => ({
  sent: 0,
  byKind: new Map(),
  statuses: new Map(),
  serverErrors: [],
  dropped: [],
  timeouts: [],
  unsendable: [],
  reusedSockets: 0,
  connectionClose: 0,
});

/** A request as a reader can replay it: method, target, headers, framing, body excerpt. */
const describeRequest = (request: FuzzRequest) =>
  `#${request.index} ${request.method} ${excerpt(request.path, 200)} [${request.route}; body: ${request.bodyKind}]\n` +
  `    headers ${JSON.stringify(request.headers)}${request.chunked ? ', chunked' : ''}\n` +
  `    body ${excerpt(request.body)}`;

function record(tally: Tally, request: FuzzRequest, outcome: Outcome): void {
  tally.sent++;
  const kind = `${request.method} ${request.route} | ${request.bodyKind.replace(/ \(\d+.*\)$/, '')}`;
  const result = outcome.kind === 'answer' ? String(outcome.status) : outcome.kind;
  const counts = tally.byKind.get(kind) ?? new Map<string, number>();
  tally.byKind.set(kind, counts.set(result, (counts.get(result) ?? 0) + 1));
  switch (outcome.kind) {
    case 'answer':
      tally.statuses.set(outcome.status, (tally.statuses.get(outcome.status) ?? 0) + 1);
      if (outcome.reusedSocket) tally.reusedSockets++;
      if (outcome.connection === 'close') tally.connectionClose++;
      if (outcome.status >= 500) tally.serverErrors.push(`${describeRequest(request)}\n    → ${outcome.status} ${excerpt(outcome.text)}`);
      return;
    case 'dropped':
      tally.dropped.push(`${describeRequest(request)}\n    → ${outcome.error}${outcome.reusedSocket ? ' (on a reused socket)' : ''}`);
      return;
    case 'timeout':
      tally.timeouts.push(
        `${describeRequest(request)}\n    → no whole answer in ${REQUEST_TIMEOUT_MS} ms (status ${outcome.status ?? 'none'})`,
      );
      return;
    case 'unsendable':
      tally.unsendable.push(`${describeRequest(request)}\n    → ${outcome.error}`);
  }
}

/** Adds the ids a successful create answered to the pool, so later requests can name them. */
function learnIds(pool: IdPool, route: Route | undefined, outcome: Outcome): void {
  if (outcome.kind !== 'answer' || outcome.status !== 200 || !route?.creates) return;
  let body: any;
  try {
    body = JSON.parse(outcome.text);
  } catch {
    return;
  }
  if (route.creates === 'annotation' && body?.annotation?.id) pool.annotation.push(body.annotation.id);
  else if (typeof body?.id === 'string') pool[route.creates].push(body.id);
  if (route.creates === 'conversation') {
    for (const m of body?.messages?.iterable ?? []) if (pool.message.length < 500) pool.message.push(m.id);
    for (const a of body?.annotations?.iterable ?? []) pool.annotation.push(a.id);
  }
}

function printReport(tally: Tally, elapsedMs: number, serverLog: string[]): void {
  const section = (title: string, lines: string[]) => {
    if (lines.length === 0) return;
    console.log(`fuzz: ${title} (${lines.length}; the first ${Math.min(SHOWN, lines.length)}):\n  ${lines.slice(0, SHOWN).join('\n  ')}`);
  };
  section('answers >= 500', tally.serverErrors);
  section('dropped connections', tally.dropped);
  section('timeouts', tally.timeouts);
  section('requests node:http refused to send (generator bugs, not counted)', tally.unsendable);
  section(
    'server log (console.error)',
    serverLog.map((line) => line.slice(0, 1500)),
  );
  if (process.env.FUZZ_VERBOSE) {
    const lines = [...tally.byKind]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, counts]) => `${kind}: ${[...counts].map(([r, n]) => `${r}×${n}`).join(' ')}`);
    console.log(`fuzz: statuses by request kind\n  ${lines.join('\n  ')}`);
  }
  const statuses = [...tally.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  console.log(
    `fuzz details: ${(elapsedMs / 1000).toFixed(1)} s; statuses ${statuses}; ${tally.timeouts.length} timeouts; ` +
      `${tally.reusedSockets} answers on a reused socket; ${tally.connectionClose} answers with Connection: close`,
  );
  console.log(
    `fuzz: ${tally.sent} requests, ${tally.serverErrors.length} answers >= 500, ${tally.dropped.length} dropped connections (seed ${SEED})`,
  );
}

// ---------------------------------------------------------------------------------------------
// The test

/** A GET outside the fuzz's agent; anything but 200 throws with the answer. */
const getJsonFrom = (base: string) => async (pathAndQuery: string) => {
  const response = await fetch(base + pathAndQuery);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
};

/** Records compared across the reopen: JSON as the service answers it, without transferables. */
const snapshotOf = async (service: Service) => {
  const light = { transferables: false } as const;
  const lists = {
    conversations: await service.listConversations(light),
    '/anchors': await service.listAnchors(),
    '/assets': await service.listAssets(),
    '/websites': await service.listWebsites(),
    '/ranges': await service.listRanges(),
    '/workstream_summaries': await service.listWorkstreamSummaries(),
    '/annotations': await service.listAnnotations(),
  };
  return JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(lists).map(([name, list]) => [name, list.iterable]))));
};

describe('HTTP fuzz', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it(
    `answers every request with a whole, non-5xx answer and keeps the store consistent (seed ${SEED})`,
    async () => {
      // The data folder sits in a folder of its own, next to canary files no request may reach
      // (model cache deletion removes folders: no id may lead it outside the data folder).
      const root = await tempDir('cms-fuzz-');
      const dataDir = path.join(root, 'data');
      const canaries = [path.join(root, 'canary.txt'), path.join(root, 'models', 'canary.txt')];
      for (const file of canaries) {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, 'keep me');
      }
      const service = await createService({ dataDir, summarizer: createFakeSummarizer() });
      let serviceOpen = true;
      cleanups.push(async () => serviceOpen && service.close());
      const pool = await seedStore(service);

      const server: RunningHttpServer = await startHttpServer(service, {
        port: 0,
        host: '127.0.0.1',
        maxBodyBytes: MAX_BODY_BYTES,
        keepAliveTimeoutMs: 2000,
        shutdownGraceMs: 1000,
      });
      cleanups.push(() => server.close());
      const origin = new URL(server.url);
      expect(origin.hostname).toBe('127.0.0.1');

      // The server logs unexpected errors (the cause of a 500): keep the first few for the report.
      const serverLog: string[] = [];
      const consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
        if (serverLog.length < 50) serverLog.push(format(...args));
      });

      // The fuzz: CONCURRENCY workers draw request numbers until the count or the time cap is reached.
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const tally = newTally();
      const started = Date.now();
      const deadline = started + TIME_CAP_MS;
      let next = 0;
      const worker = async () => {
        while (next < REQUESTS && Date.now() < deadline) {
          const request = makeRequest(next++, pool, origin);
          const outcome = await send(agent, origin, request, REQUEST_TIMEOUT_MS, (error) =>
            tally.dropped.push(`${describeRequest(request)}\n    → after the answer, the socket failed: ${error}`),
          );
          record(tally, request, outcome);
          learnIds(pool, request.routeOf, outcome);
        }
      };
      try {
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      } finally {
        agent.destroy();
        consoleError.mockRestore();
        printReport(tally, Date.now() - started, serverLog);
      }

      // Afterwards: the server answers, and what it answers is consistent.
      const getJson = getJsonFrom(server.url);
      const models = await getJson('/models');
      expect(models.iterable.length).toBeGreaterThan(0);
      const state = await readStore(getJson);
      const overHttp = consistencyProblems(state);
      const before = await snapshotOf(service);

      await server.close();
      await service.close();
      serviceOpen = false;

      // The stored records, relation by relation; then the folder reopens with the same records.
      const repository = await createJsonFileRepository({ file: path.join(dataDir, 'db.json') });
      const stored = await storedRelationProblems(repository).finally(() => repository.close());
      const reopened = await createService({ dataDir });
      const after = await snapshotOf(reopened).finally(() => reopened.close());

      console.log(
        `fuzz store: ${state.conversations.length} conversations, ` +
          Object.entries(state.lists)
            .map(([list, items]) => `${items.length} ${list.slice(1)}`)
            .join(', '),
      );
      expect.soft(tally.serverErrors, 'answers >= 500').toEqual([]);
      expect.soft(tally.dropped, 'dropped connections').toEqual([]);
      expect.soft(tally.timeouts, 'requests without an answer in time').toEqual([]);
      expect.soft(overHttp, 'link problems seen over HTTP').toEqual([]);
      expect.soft(stored, 'link problems in the stored records').toEqual([]);
      expect.soft(after, 'the reopened store').toEqual(before);
      for (const file of canaries) expect.soft(existsSync(file), `${file} still exists`).toBe(true);
      expect(before.conversations.map((c: { id: string }) => c.id)).toEqual(state.conversations.map((c) => c.id));
    },
    TIME_CAP_MS + 90_000,
  );
});
