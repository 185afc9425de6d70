/**
 * `npm run bench:index-size`: what the search index costs for text of made-up words, where nearly
 * every word is a term of its own (the worst case for a term dictionary), and what it does to a
 * start.
 *
 * The store: INDEX_MESSAGES (13,454) messages of INDEX_WORDS (300) made-up words (letters at
 * random, 5 to 11 of them; a fixed seed), 10 to a conversation, written through the repository's
 * transactions in batches of 200 (no fsync while building), the index kept by the store's writes
 * and saved by its compaction at close. Then, each in a fresh process (--expose-gc) serving the
 * store over HTTP on 127.0.0.1, INDEX_ROUNDS (3) rounds taking turns (the machine is shared and
 * noisy; medians are printed):
 * - `file`: the store as it is, its index file read at start;
 * - `rebuild`: the index file removed first: the start builds the index from the records;
 * - `none`: `searchIndex: false`, no index at all: the floor a start is compared with.
 * For each: the time from the process's spawn to its first answered request
 * (GET /.well-known/health, asked every 10 ms; node and tsx loading the modules take most of it, and
 * vary most: the time from the store's open to the server listening, on the child's clock, is
 * printed beside it), to its first search answer (POST /messages/search
 * for a word of the store, sent once health answers; searches wait for the index), the health
 * probe's latencies while the index loads (p50, p99, max), the event loop's delays from the start
 * until the index is in memory (monitorEventLoopDelay, 10 ms resolution: p99 and max; the start
 * with no index shows what the machine and the store's own open cost), and the RSS
 * growth from before the store opens to once its index is in memory (after a full GC), against
 * the text. Targets (issue 25): index file ≤ the text; RSS growth ≤ 2× the text; the first
 * request answered as fast as with no index; the event loop held no more than a slice at a time.
 *
 * Env: INDEX_MESSAGES, INDEX_WORDS, INDEX_ROUNDS. Quick run: INDEX_MESSAGES=2000 npm run bench:index-size
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from '../adapters/hono/serve.js';
import type { ConversationRecord, MessageRecord } from '../src/index.js';
import type { DeferredSearchIndex } from '../src/search/deferred-index.js';
import { createService } from '../src/service.js';
// Not the lazy export of src/index.ts: the store's modules load before the memory is measured.
import { createJsonFileRepository } from '../src/stores/json-file/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { conversationRecord } from '../src/testing/records.js';
import { percentile } from './stats.js';
import { conversationId } from './store-format4.js';

const env = process.env;
const OPTIONS = {
  messages: Number(env.INDEX_MESSAGES ?? 13_454),
  words: Number(env.INDEX_WORDS ?? 300),
  rounds: Number(env.INDEX_ROUNDS ?? 3),
};
const PER_CONVERSATION = 10;
const BATCH = 200;
const SELF = fileURLToPath(import.meta.url);
const MB = 1e6;
const VARIANTS = ['file', 'rebuild', 'none'] as const;
type Variant = (typeof VARIANTS)[number];

/** Made-up words from a seed: letters at random, 5 to 11 of them. */
function madeUpWords(seed: number): () => string {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    let word = '';
    const length = 5 + Math.floor(next() * 7);
    for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    return word;
  };
}

const fileOf = (dir: string) => path.join(dir, 'db.json');
const messageId = (n: number) => `00000003-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
/** The word every search of a start asks for: the first of the first message. */
const FIRST_WORD = madeUpWords(1)();

// ---------------------------------------------------------------------------------------------
// Children.

async function buildChild(dir: string): Promise<void> {
  const word = madeUpWords(1);
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir), durability: 'unsafe-no-fsync' });
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  let textBytes = 0;
  const conversations = Math.ceil(OPTIONS.messages / PER_CONVERSATION);
  for (let start = 0; start < conversations; start += BATCH) {
    await repository.transact((tx) => {
      for (let c = start; c < Math.min(conversations, start + BATCH); c++) {
        const id = conversationId(c);
        const at = (second: number) => ({ value: new Date(base + c * 600_000 + second * 1000).toISOString() });
        const count = Math.min(PER_CONVERSATION, OPTIONS.messages - c * PER_CONVERSATION);
        const messages: MessageRecord[] = Array.from({ length: count }, (_, m) => {
          const raw = Array.from({ length: OPTIONS.words }, word).join(' ');
          textBytes += Buffer.byteLength(raw);
          return {
            id: messageId(c * PER_CONVERSATION + m),
            created: at(m),
            updated: at(m),
            conversation: id,
            role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
            fragment: { string: { raw } },
            groundedConversations: [],
          };
        });
        const conversation: ConversationRecord = {
          ...conversationRecord(id, ''),
          created: at(0),
          updated: at(count),
          messages: messages.map((m) => m.id),
        };
        for (const message of messages) tx.put('messages', message);
        tx.put('conversations', conversation);
      }
    });
  }
  await (repository.search as DeferredSearchIndex).ready;
  const writtenMs = performance.now() - t0;
  const t1 = performance.now();
  await repository.close();
  print({ textBytes, writtenMs, closeMs: performance.now() - t1 });
}

async function serveChild(dir: string, variant: Variant): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const openingMs = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir), searchIndex: variant !== 'none' });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  print({ port: server.port, listeningMs: performance.now() - openingMs });
  if (repository.search) await (repository.search as DeferredSearchIndex).ready;
  const indexMs = performance.now();
  delay.disable();
  globalThis.gc?.();
  globalThis.gc?.();
  print({ indexMs, rssGrowth: process.memoryUsage().rss - rssBefore, maxDelayMs: delay.max / 1e6, p99DelayMs: delay.percentile(99) / 1e6 });
  process.once('SIGTERM', async () => {
    await server.close();
    await service.close();
    process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------
// The parent.

type Line = Record<string, number>;
const live = new Set<ChildProcess>();

function child(args: string[], onLine: (line: Line) => void): { process: ChildProcess; exited: Promise<number | null> } {
  const spawned = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, 'child', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  live.add(spawned);
  let buffer = '';
  spawned.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (text.startsWith('{')) onLine(JSON.parse(text));
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    spawned.on('close', (code) => {
      live.delete(spawned);
      resolve(code);
    }),
  );
  return { process: spawned, exited };
}

function ask(port: number, method: 'GET' | 'POST', pathname: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        agent: false,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Start {
  readonly firstAnswerMs: number;
  readonly firstSearchMs: number;
  /** From the store's open to the server listening, on the child's own clock (module loading left out). */
  readonly listeningMs: number;
  readonly indexMs: number;
  readonly rssGrowth: number;
  readonly maxDelayMs: number;
  readonly p99DelayMs: number;
  readonly probes: number[];
  /** Health probes not answered 200 (the connection dropped, or another status). */
  readonly failedProbes: number;
  readonly searchHits: boolean;
}

/** One start of the store in a fresh process, timed from its spawn. */
async function start(dir: string, variant: Variant): Promise<Start> {
  const t0 = performance.now();
  let port: number | undefined;
  let listeningMs = NaN;
  let done: (line: Line) => void;
  const loaded = new Promise<Line>((resolve) => (done = resolve));
  const server = child(['serve', dir, variant], (line) => {
    if (line.port !== undefined) {
      port = line.port;
      listeningMs = line.listeningMs!;
    } else done(line);
  });
  try {
    // Health, every 10 ms, from the spawn: refused until the server listens.
    let firstAnswerMs = NaN;
    while (Number.isNaN(firstAnswerMs)) {
      if (performance.now() - t0 > 600_000) throw new Error(`the ${variant} start did not answer in 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (port === undefined) continue;
      const status = await ask(port, 'GET', '/.well-known/health').catch(() => 0);
      if (status === 200) firstAnswerMs = performance.now() - t0;
    }
    // The first search, sent now; health probed beside it until it answers.
    const body = JSON.stringify({ engines: { iterable: [{ query: FIRST_WORD }] } });
    let searched = false;
    let searchHits = false;
    const search = (async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/messages/search?transferables=false',
            agent: false,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
            response.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      searchHits = (JSON.parse(answer) as { iterable: unknown[] }).iterable.length > 0;
      searched = true;
      return performance.now() - t0;
    })();
    const probes: number[] = [];
    let failedProbes = 0;
    while (!searched) {
      const t1 = performance.now();
      // A probe the server dropped is counted and shown, not fatal: the search's own answer (or its
      // error) says whether the server is still there.
      if ((await ask(port!, 'GET', '/.well-known/health').catch(() => 0)) === 200) probes.push(performance.now() - t1);
      else failedProbes++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const firstSearchMs = await search;
    const line = await loaded;
    return {
      firstAnswerMs,
      firstSearchMs,
      listeningMs,
      indexMs: line.indexMs!,
      rssGrowth: line.rssGrowth!,
      maxDelayMs: line.maxDelayMs!,
      p99DelayMs: line.p99DelayMs!,
      probes,
      failedProbes,
      searchHits,
    };
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
  }
}

async function storeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir))
    if (/^db\.json(\.(journal|messages|hint)-\d+)?$/.test(name)) total += (await stat(path.join(dir, name))).size;
  return total;
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const median = (values: number[]) => percentile(values, 0.5);

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-index-'));
  const cleanup = () => {
    for (const spawned of live) spawned.kill('SIGKILL');
  };
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    const dir = path.join(root, 'store');
    let built: Line | undefined;
    const builder = child(['build', dir], (line) => (built = line));
    if ((await builder.exited) !== 0 || !built) throw new Error('the build failed');
    const textBytes = built.textBytes!;
    const indexBytes = (await stat(path.join(dir, 'db.json.search'))).size;
    const ownBytes = await storeBytes(dir);
    console.error(
      `built ${OPTIONS.messages} messages × ${OPTIONS.words} words in ${fixed(built.writtenMs! / 1000, 1)} s (close ${fixed(built.closeMs! / 1000, 1)} s)`,
    );

    const starts = new Map<Variant, Start[]>(VARIANTS.map((variant) => [variant, []]));
    for (let round = 0; round < OPTIONS.rounds; round++) {
      for (const variant of VARIANTS) {
        // Each start on a copy: a rebuild saves its file, which the next `file` start must not see changed.
        const copy = path.join(root, `${variant}-${round}`);
        await cp(dir, copy, { recursive: true, filter: (source) => !source.endsWith('.lock') });
        if (variant === 'rebuild') await rm(path.join(copy, 'db.json.search'));
        const figures = await start(copy, variant);
        starts.get(variant)!.push(figures);
        await rm(copy, { recursive: true, force: true });
        console.error(
          `  ${variant}: first answer ${fixed(figures.firstAnswerMs)} ms, first search ${fixed(figures.firstSearchMs)} ms, index in ${fixed(figures.indexMs)} ms, longest event-loop delay ${fixed(figures.maxDelayMs)} ms`,
        );
      }
    }

    const of = (variant: Variant, key: keyof Omit<Start, 'probes' | 'failedProbes' | 'searchHits'>) =>
      median(starts.get(variant)!.map((s) => s[key]));
    const probes = (variant: Variant) => starts.get(variant)!.flatMap((s) => s.probes);
    const failed = (variant: Variant) => starts.get(variant)!.reduce((sum, s) => sum + s.failedProbes, 0);
    console.log(
      `\nThe search index of ${OPTIONS.messages.toLocaleString('en')} messages × ${OPTIONS.words} made-up words (text ${fixed(textBytes / MB, 1)} MB; store files ${fixed(ownBytes / MB, 1)} MB)`,
    );
    console.log('| measured | figure | target |');
    console.log('|---|---|---|');
    console.log(
      `| index file | **${fixed(indexBytes / MB, 1)} MB = ${fixed(indexBytes / textBytes, 2)}× the text** | ≤ 1×: ${indexBytes <= textBytes ? 'met' : 'NOT met'} |`,
    );
    const growth = of('file', 'rssGrowth');
    console.log(
      `| RSS growth, open to index in memory (read from its file) | **${fixed(growth / MB)} MB = ${fixed(growth / textBytes, 2)}× the text** (no index: ${fixed(of('none', 'rssGrowth') / MB)} MB; rebuilt: ${fixed(of('rebuild', 'rssGrowth') / MB)} MB) | ≤ 2×: ${growth <= 2 * textBytes ? 'met' : 'NOT met'} |`,
    );
    console.log(`\nStarts, from the process's spawn (node and tsx start included), medians of ${OPTIONS.rounds} round(s)`);
    console.log(
      '| start | first answered request ms | open to listening ms (its own clock) | first search answered ms | index in memory ms | event-loop delay until then, p99 and max ms | health while loading: probes, p50, p99, max ms |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const variant of VARIANTS) {
      const p = probes(variant);
      const label = {
        file: 'index read from its file',
        rebuild: 'no index file: built from the records',
        none: 'no index (`searchIndex: false`)',
      }[variant];
      console.log(
        `| ${label} | ${fixed(of(variant, 'firstAnswerMs'))} | ${fixed(of(variant, 'listeningMs'))} | ${fixed(of(variant, 'firstSearchMs'))} | ${variant === 'none' ? '—' : fixed(of(variant, 'indexMs'))} | ${fixed(of(variant, 'p99DelayMs'))}, ${fixed(of(variant, 'maxDelayMs'))} | ${p.length}${failed(variant) > 0 ? ` (and ${failed(variant)} not answered)` : ''}, ${fixed(percentile(p, 0.5), 1)}, ${fixed(percentile(p, 0.99), 1)}, ${fixed(Math.max(...p), 1)} |`,
      );
    }
    const missed = VARIANTS.filter((variant) => !starts.get(variant)!.every((s) => s.searchHits));
    if (missed.length > 0) {
      console.log(`\nThe first search found nothing in: ${missed.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    cleanup();
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') {
  const [mode, dir, variant] = process.argv.slice(3);
  try {
    if (mode === 'build') await buildChild(dir!);
    else await serveChild(dir!, variant as Variant);
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
} else await main();
