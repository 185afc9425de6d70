/**
 * `npm run bench:attacks`: the costly searches a hostile local client can send (issue 25), each
 * replayed against the real server beside a health probe, and real searches beside them, to show
 * that the budgets (`SEARCH_BUDGET`) refuse the first and never the second.
 *
 * The store: ATTACKS_CONVERSATIONS (5,001) conversations of ATTACKS_MESSAGES (10) messages in a
 * JSON-file store, built in a child process (no fsync while building, the index saved by the
 * compaction at close). Most conversations are the developer chats' text (../shared/data/devchats
 * beside the repository; without it the benchmark says what to provide and stops,
 * bench/outside-data.ts; windows of 200–1,500 characters, as bench/search.ts builds them); every ATTACKS_HOSTILE-th (10th)
 * is a hostile one, whose messages are 150 made-up words starting with `zq`, 300 common Chinese
 * characters, or 150 made-up words: a dictionary of many terms, and posting lists for the Chinese
 * pairs. A fixed seed makes every run build the same store and the same bodies.
 *
 * The server: `startHttpServer` over that store on 127.0.0.1, in a process of its own, which
 * measures its own event loop over each attack (`monitorEventLoopDelay` at 5 ms, and the longest
 * gap a 2 ms timer saw) and its CPU time (`process.cpuUsage`, the health probes' included).
 *
 * The attacks (16 engines each, the most a body may hold): made-up 24-letter words (32 an engine:
 * typo expansion), one identifier of ~130 camelCase parts, 1,000 characters of the store's most
 * common words (long posting lists), the same with `limit=1000`, the prefix `zq`, engines nested
 * AND/OR four levels deep, 1,000 common Chinese characters; and a plain search of two words, for
 * reference. Each runs ATTACKS_ROUNDS (3) times, one after another; meanwhile this process sends
 * GET /.well-known/health one after another (2 ms apart) on a connection of its own. Per attack:
 * the status, the answer's time (median and max of the rounds) and size, the server's CPU time,
 * the probes' p50, p99 and max, and the server's longest event-loop delay. Targets: no request
 * holds the event loop over 50 ms, health p99 ≤ 100 ms during each attack, every answer within
 * 1 s or refused (4xx).
 *
 * Then real searches: ATTACKS_REAL_QUERIES (300) queries from the chats' own words, one engine
 * each, sent over HTTP (1 to 3 words, as bench/search.ts; and 4 to 32 words pasted from a chat's
 * text) to both search routes, at the default limit and at limit=1000: how many were refused; and,
 * in the server's process before it serves, each query's use of every budget (`SearchBudget.used`)
 * at the 1,000 candidates an engine asks the index for: the most any used, against the budget.
 * The calibration run is ATTACKS_CONVERSATIONS=50000 ATTACKS_HOSTILE=0.
 *
 * Env: ATTACKS_CONVERSATIONS=5001, ATTACKS_MESSAGES=10, ATTACKS_HOSTILE=10 (0: none),
 * ATTACKS_ROUNDS=3, ATTACKS_REAL_QUERIES=300, ATTACKS_ONLY=typos,prefix,... (attacks to run),
 * SEARCH_DEVCHATS (the chats' file), ATTACKS_SERVER_FLAGS (Node flags of the server's process, say
 * `--trace-gc`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from '../adapters/hono/serve.js';
import type { ConversationRecord, MessageRecord, TextSearch } from '../src/index.js';
import { SEARCH_BUDGET, SearchBudget } from '../src/search/search-budget.js';
import { endsInWord, queryWords } from '../src/search/tokens.js';
import { createService } from '../src/service.js';
import { createJsonFileRepository } from '../src/stores/json-file/index.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';
import { conversationRecord } from '../src/testing/records.js';
import { devChats, skippedForData } from './outside-data.js';
import { percentile } from './stats.js';
import { conversationId } from './store-format4.js';
import { seeded } from './texts.js';

const env = process.env;
const OPTIONS = {
  conversations: Number(env.ATTACKS_CONVERSATIONS ?? 5_001),
  messages: Number(env.ATTACKS_MESSAGES ?? 10),
  hostile: Number(env.ATTACKS_HOSTILE ?? 10),
  rounds: Number(env.ATTACKS_ROUNDS ?? 3),
  realQueries: Number(env.ATTACKS_REAL_QUERIES ?? 300),
  only: new Set((env.ATTACKS_ONLY ?? '').split(',').filter(Boolean)),
};
const TARGETS = { loopMs: 50, healthP99Ms: 100, answerMs: 1000 };
const ENGINES = 16;
const SELF = fileURLToPath(import.meta.url);
const BATCH = 200;
/** How long any one request may take before the bench gives up on it. */
const REQUEST_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------
// Words and texts, all from one seed.

const DEVCHATS = devChats().file;

/** The chats' texts, their messages' joined. */
function readChats(): string[] {
  return readFileSync(DEVCHATS, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { messages: { text: string }[] }).messages.map((m) => m.text).join('\n\n'));
}

/** 200–1,500 characters of a chat (chosen in proportion to its length) from a random offset, cut at whitespace. */
function windowOf(chats: readonly string[], cumulative: readonly number[], random: () => number): string {
  const at = random() * cumulative.at(-1)!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulative[middle]! > at) high = middle;
    else low = middle + 1;
  }
  const text = chats[low]!;
  const length = 200 + Math.floor(random() * 1301);
  if (text.length <= length) return text;
  let start = Math.floor(random() * (text.length - length));
  let end = start + length;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  while (end > start + 200 && end < text.length && !/\s/.test(text[end]!)) end--;
  return text.slice(start, end).trim() || text.slice(start, start + length);
}

const STOP = new Set(
  'the and for with that this you are from not but can have has was were will would should could its into then than there their them they what when where which who how why all any our out use using used also just like get set see let run now new one two via your about after before each more most other some such only over under been being does did done make made need here'.split(
    ' ',
  ),
);

/** The chats' words of 3 letters or more but stop words, as often as they occur. */
const wordBag = (chats: readonly string[]) =>
  chats.flatMap((text) => (text.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((word) => !STOP.has(word)));

/** The `count` most frequent words of the bag. */
function commonWords(bag: readonly string[], count: number): string[] {
  const frequency = new Map<string, number>();
  for (const word of bag) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  return [...frequency.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([word]) => word);
}

const CHINESE =
  '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从';
const letters = (random: () => number, count: number) =>
  Array.from({ length: count }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
const chinese = (random: () => number, count: number) =>
  Array.from({ length: count }, () => CHINESE[Math.floor(random() * CHINESE.length)]!).join('');

// ---------------------------------------------------------------------------------------------
// The attacks.

interface Attack {
  readonly name: string;
  readonly what: string;
  readonly path: string;
  readonly body: unknown;
}

const engines = (queries: string[]) => ({ engines: { iterable: queries.map((query) => ({ query })) } });

function attacks(common: readonly string[]): Attack[] {
  const random = seeded(25);
  const sixteen = <T>(make: (i: number) => T) => Array.from({ length: ENGINES }, (_, i) => make(i));
  /** Common words, drawn at random, up to `chars` characters. */
  const commonText = (chars: number) => {
    let text = common[Math.floor(random() * common.length)]!;
    for (;;) {
      const word = common[Math.floor(random() * common.length)]!;
      if (text.length + 1 + word.length > chars) return text;
      text += ` ${word}`;
    }
  };
  const identifier = () => {
    let word = '';
    for (let parts = 0; parts < 130; parts++) {
      const part = common[Math.floor(random() * common.length)]!;
      const next = parts === 0 ? part : part[0]!.toUpperCase() + part.slice(1);
      if (word.length + next.length > 1000) break;
      word += next;
    }
    return word;
  };
  // Four levels, 16 engines in all: an AND of an engine and an OR of an engine and an AND of ….
  const nested = (level: number): Record<string, unknown> => ({
    query: commonText(60),
    ...(level < 3
      ? {
          operations: {
            type: level % 2 === 0 ? 'OR' : 'AND',
            iterable: level === 2 ? sixteen(() => ({ query: commonText(60) })).slice(0, 12) : [nested(level + 1)],
          },
        }
      : {}),
  });
  return [
    {
      name: 'plain',
      what: 'a plain search: two common words (for reference)',
      path: '/conversations/search',
      body: engines([common.slice(0, 2).join(' ')]),
    },
    {
      name: 'typos',
      what: '16 engines × 32 made-up 24-letter words (typo expansion)',
      path: '/conversations/search',
      body: engines(sixteen(() => Array.from({ length: 32 }, () => letters(random, 24)).join(' '))),
    },
    {
      name: 'identifier',
      what: '16 engines × one identifier of ~130 camelCase parts',
      path: '/conversations/search',
      body: engines(sixteen(identifier)),
    },
    {
      name: 'common',
      what: '16 engines × 1,000 characters of the most common words (long posting lists)',
      path: '/conversations/search',
      body: engines(sixteen(() => commonText(1000))),
    },
    {
      name: 'limit1000',
      what: 'the same, limit=1000 (the answer’s records)',
      path: '/conversations/search?limit=1000',
      body: engines(sixteen(() => commonText(1000))),
    },
    {
      name: 'limit1000-one',
      what: 'one engine of 1,000 characters of common words, limit=1000, /messages/search',
      path: '/messages/search?limit=1000',
      body: engines([commonText(1000)]),
    },
    { name: 'prefix', what: '16 engines × the prefix `zq`', path: '/conversations/search', body: engines(sixteen(() => 'zq')) },
    {
      name: 'nested',
      what: '16 engines nested AND/OR four levels deep',
      path: '/conversations/search',
      body: { engines: { iterable: [nested(0)] } },
    },
    {
      name: 'cjk',
      what: '16 engines × 1,000 common Chinese characters (pairs)',
      path: '/conversations/search',
      body: engines(sixteen(() => chinese(random, 1000))),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Children: the store's build, and the server.

type Line = Record<string, unknown>;
const live = new Set<ChildProcess>();
const print = (line: Line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const fileOf = (dir: string) => path.join(dir, 'db.json');
const messageId = (conversation: number, message: number) =>
  `00000002-0000-4000-8000-${(conversation * OPTIONS.messages + message).toString(16).padStart(12, '0')}`;

async function buildChild(dir: string): Promise<void> {
  const chats = readChats();
  const cumulative: number[] = [];
  let total = 0;
  for (const chat of chats) cumulative.push((total += chat.length));
  const random = seeded(1);
  const repository = await createJsonFileRepository({ file: fileOf(dir), durability: 'unsafe-no-fsync' });
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  let textChars = 0;
  const hostileText = (m: number) =>
    m % 3 === 0
      ? Array.from({ length: 150 }, () => `zq${letters(random, 6)}`).join(' ')
      : m % 3 === 1
        ? chinese(random, 300)
        : Array.from({ length: 150 }, () => letters(random, 8)).join(' ');
  for (let start = 0; start < OPTIONS.conversations; start += BATCH) {
    await repository.transact((tx) => {
      for (let i = start; i < Math.min(OPTIONS.conversations, start + BATCH); i++) {
        const id = conversationId(i);
        const hostile = OPTIONS.hostile > 0 && i % OPTIONS.hostile === OPTIONS.hostile - 1;
        const at = (second: number) => ({ value: new Date(base + i * 600_000 + second * 1000).toISOString() });
        const messages: MessageRecord[] = Array.from({ length: OPTIONS.messages }, (_, m) => {
          const raw = hostile ? hostileText(m) : windowOf(chats, cumulative, random);
          textChars += raw.length;
          return {
            id: messageId(i, m),
            created: at(m),
            updated: at(m),
            conversation: id,
            role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
            fragment: { string: { raw } },
            groundedConversations: [],
          };
        });
        const conversation: ConversationRecord = {
          ...conversationRecord(id, hostile ? `zq ${letters(random, 10)}` : windowOf(chats, cumulative, random).slice(0, 60)),
          created: at(0),
          updated: at(OPTIONS.messages),
          messages: messages.map((m) => m.id),
        };
        for (const message of messages) tx.put('messages', message);
        tx.put('conversations', conversation);
      }
    });
  }
  await repository.close();
  print({ built: true, textChars });
}

/** The real searches: queries of the chats' own words, `count` of 1–3 words and `count` pasted from their text (4–32 words). */
function realQueries(chats: readonly string[], count: number): string[] {
  const random = seeded(7);
  const bag = wordBag(chats);
  const short = Array.from({ length: count }, (_, i) =>
    Array.from({ length: 1 + (i % 3) }, () => bag[Math.floor(random() * bag.length)]!).join(' '),
  );
  const pasted = Array.from({ length: count }, () => {
    const words = chats[Math.floor(random() * chats.length)]!.split(/\s+/).filter(Boolean);
    const length = 4 + Math.floor(random() * 29);
    const start = Math.floor(random() * Math.max(1, words.length - length));
    return words.slice(start, start + length).join(' ');
  });
  return [...short, ...pasted];
}

/** What each real query uses of the budgets, as the service asks the index (1,000 candidates), for conversations and messages. */
async function budgetUse(search: TextSearch, queries: readonly string[]): Promise<Record<string, number>> {
  const most: Record<string, number> = {};
  const all: Record<string, number[]> = {};
  for (const text of queries) {
    for (const scope of ['conversations', 'messages'] as const) {
      // Unbounded for the work it refuses: what each query needs, to set against the budget.
      const budget = new SearchBudget({ ...SEARCH_BUDGET, postings: Number.POSITIVE_INFINITY, recordChars: Number.POSITIVE_INFINITY });
      const query = { text, words: queryWords(text), prefix: endsInWord(text), limit: 1000, budget };
      await (scope === 'conversations' ? search.searchConversations(query) : search.searchMessages(query));
      for (const [name, used] of Object.entries(budget.used)) {
        most[name] = Math.max(most[name] ?? 0, used);
        (all[name] ??= []).push(used);
      }
    }
  }
  return Object.fromEntries([
    ...Object.entries(most).map(([name, used]) => [`${name}Max`, used]),
    ...Object.entries(all).map(([name, used]) => [`${name}P99`, percentile(used, 0.99)]),
  ]);
}

async function serveChild(dir: string): Promise<void> {
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file: fileOf(dir) });
  const service = await createService({ repository, summarizer: createFakeSummarizer() });
  const search = repository.search!;
  // The index is read in the background: a first search waits for it.
  await search.searchMessages({ text: 'warm', words: queryWords('warm'), prefix: false, limit: 1 });
  const openMs = performance.now() - t0;
  const use = await budgetUse(search, realQueries(readChats(), Math.ceil(OPTIONS.realQueries / 2)));

  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  // Between two ticks of a 2 ms timer: the time that passed, and the CPU time the process used
  // meanwhile. A gap with as much CPU is work that held the loop; one without is the machine's other
  // processes taking the CPU (every process here shares 2 cores).
  let gapMax = 0;
  let heldMax = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpuNow = process.cpuUsage();
    gapMax = Math.max(gapMax, now - last - 2);
    heldMax = Math.max(heldMax, (cpuNow.user - lastCpu.user + cpuNow.system - lastCpu.system) / 1000);
    last = now;
    lastCpu = cpuNow;
  }, 2);
  // The longest garbage collection: a pause of the whole process, not of one request's code.
  let gcMax = 0;
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMax = Math.max(gcMax, entry.duration);
  });
  collections.observe({ entryTypes: ['gc'] });
  let cpu = process.cpuUsage();
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  print({ port: server.port, openMs, ...use });
  const stop = async () => {
    clearInterval(timer);
    collections.disconnect();
    await server.close();
    await service.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  createInterface({ input: process.stdin })
    .on('line', (command) => {
      if (command === 'reset') {
        histogram.reset();
        gapMax = 0;
        heldMax = 0;
        gcMax = 0;
        last = performance.now();
        lastCpu = process.cpuUsage();
        cpu = process.cpuUsage();
        print({ reset: true });
      } else if (command === 'report') {
        const used = process.cpuUsage(cpu);
        print({
          loopMax: histogram.max / 1e6,
          loopP99: histogram.percentile(99) / 1e6,
          gapMax,
          heldMax,
          gcMax,
          cpuMs: (used.user + used.system) / 1000,
        });
      }
    })
    .on('close', () => void stop());
}

/** This file in a child process: its JSON lines, one at a time, and a way to tell it a command. */
function startChild(args: string[]): {
  next(key: string, timeoutMs: number): Promise<Line>;
  tell(command: string): void;
  done: Promise<void>;
} {
  const flags = args[0] === 'serve' ? (env.ATTACKS_SERVER_FLAGS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', SELF, 'child', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  live.add(child);
  child.stdin!.on('error', () => {});
  const lines: Line[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  createInterface({ input: child.stdout! })
    .on('line', (text) => {
      if (!text.startsWith('{')) return;
      lines.push(JSON.parse(text) as Line);
      wake?.();
    })
    .on('close', () => {
      ended = true;
      wake?.();
    });
  const done = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  return {
    async next(key, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const at = lines.findIndex((line) => key in line || 'error' in line);
        if (at >= 0) {
          const found = lines.splice(0, at + 1).at(-1)!;
          if ('error' in found) throw new Error(`child ${args[0]}: ${String(found.error)}`);
          return found;
        }
        if (ended) throw new Error(`child ${args[0]} ended before it said ${key}`);
        if (performance.now() > deadline) throw new Error(`child ${args[0]} did not say ${key} in ${timeoutMs / 1000} s`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    },
    tell(command) {
      if (child.exitCode === null) child.stdin!.write(`${command}\n`);
    },
    done,
  };
}

// ---------------------------------------------------------------------------------------------
// The measurements.

interface Answer {
  readonly ms: number;
  readonly status: number;
  readonly bytes: number;
  readonly text: string;
}

function send(agent: Agent, port: number, method: 'GET' | 'POST', route: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: route,
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const head: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (bytes < 4096) head.push(chunk);
          bytes += chunk.length;
        });
        response.on('end', () =>
          resolve({
            ms: performance.now() - t0,
            status: response.statusCode ?? 0,
            bytes,
            text: Buffer.concat(head).toString().slice(0, 4096),
          }),
        );
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${route} gave no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

interface Round {
  readonly answer: Answer;
  readonly health: number[];
  readonly healthFailed: number;
  readonly loopMax: number;
  readonly gapMax: number;
  readonly heldMax: number;
  readonly gcMax: number;
  readonly cpuMs: number;
}

/** One attack, once: the server's loop measured from a reset, health probed until the answer is in. */
async function runOnce(server: ReturnType<typeof startChild>, port: number, attack: Attack): Promise<Round> {
  server.tell('reset');
  await server.next('reset', REQUEST_TIMEOUT_MS);
  const probes = new Agent({ keepAlive: true, maxSockets: 1 });
  const attacker = new Agent({ keepAlive: false });
  const health: number[] = [];
  let healthFailed = 0;
  let answered = false;
  const poll = (async () => {
    while (!answered) {
      try {
        const probe = await send(probes, port, 'GET', '/.well-known/health');
        if (probe.status !== 200) healthFailed++;
        health.push(probe.ms);
      } catch {
        healthFailed++;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  try {
    // The probes first: the attack arrives while they run.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answer = await send(attacker, port, 'POST', attack.path, JSON.stringify(attack.body));
    answered = true;
    await poll;
    server.tell('report');
    const report = await server.next('loopMax', REQUEST_TIMEOUT_MS);
    return {
      answer,
      health,
      healthFailed,
      loopMax: Number(report.loopMax),
      gapMax: Number(report.gapMax),
      heldMax: Number(report.heldMax),
      gcMax: Number(report.gcMax),
      cpuMs: Number(report.cpuMs),
    };
  } finally {
    answered = true;
    probes.destroy();
    attacker.destroy();
  }
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const median = (values: number[]) => percentile(values, 0.5);
const max = (values: number[]) => values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

/** What a refusal names: `413 postings`, or the status alone. */
function statusOf(answer: Answer): string {
  if (answer.status < 400) return String(answer.status);
  const budget = /"budget":"([^"]+)"/.exec(answer.text)?.[1];
  const code = /"code":"([^"]+)"/.exec(answer.text)?.[1];
  return `${answer.status} ${budget ?? code ?? ''}`.trim();
}

async function replayAttacks(server: ReturnType<typeof startChild>, port: number, common: readonly string[]): Promise<void> {
  const chosen = attacks(common).filter((attack) => OPTIONS.only.size === 0 || OPTIONS.only.has(attack.name));
  // Warm-up, not measured: compiles both ends' code.
  const warm = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 20; i++) await send(warm, port, 'POST', '/conversations/search', JSON.stringify(engines([common[i]!])));
  warm.destroy();
  console.log(
    `\nAttacks (${OPTIONS.rounds} rounds each, one after another; health probed one request after another, 2 ms apart, on a connection of its own; loop delay and CPU are the server's own over the round; machine load is the 1-minute load average after the attack, against ${availableParallelism()} CPUs: above them, other processes take the server's CPU and every delay grows)`,
  );
  console.log(
    '| attack | body KB | status | answer ms (median, max) | answer KB | server CPU ms (median) | health probes | health p50 ms | p99 ms | max ms | loop delay max ms | timer gap max ms | its CPU ms | longest GC pause ms | machine load | targets |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  let allMet = true;
  for (const attack of chosen) {
    const rounds: Round[] = [];
    for (let round = 0; round < OPTIONS.rounds; round++) rounds.push(await runOnce(server, port, attack));
    const health = rounds.flatMap((r) => r.health);
    const answerMs = rounds.map((r) => r.answer.ms);
    const statuses = [...new Set(rounds.map((r) => statusOf(r.answer)))].join(', ');
    const loopMax = max(rounds.map((r) => r.loopMax));
    const gapMax = max(rounds.map((r) => r.gapMax));
    const p99 = percentile(health, 0.99);
    const answeredInTime = rounds.every((r) => r.answer.ms <= TARGETS.answerMs || (r.answer.status >= 400 && r.answer.status < 500));
    const met = loopMax <= TARGETS.loopMs && p99 <= TARGETS.healthP99Ms && answeredInTime && rounds.every((r) => r.healthFailed === 0);
    allMet &&= met;
    console.log(
      `| ${attack.name}: ${attack.what} | ${fixed(JSON.stringify(attack.body).length / 1024, 1)} | ${statuses} | ${fixed(median(answerMs))}, ${fixed(max(answerMs))} | ${fixed(median(rounds.map((r) => r.answer.bytes)) / 1024, 1)} | ${fixed(median(rounds.map((r) => r.cpuMs)))} | ${health.length}${rounds.some((r) => r.healthFailed) ? ` (${rounds.reduce((n, r) => n + r.healthFailed, 0)} failed)` : ''} | ${fixed(percentile(health, 0.5), 1)} | ${fixed(p99, 1)} | ${fixed(max(health), 1)} | ${fixed(loopMax, 1)} | ${fixed(gapMax, 1)} | ${fixed(max(rounds.map((r) => r.heldMax)), 1)} | ${fixed(max(rounds.map((r) => r.gcMax)), 1)} | ${fixed(loadavg()[0]!, 1)} | ${met ? 'met' : 'NOT met'} |`,
    );
  }
  console.log(
    `\nTargets (no request holds the loop over ${TARGETS.loopMs} ms, health p99 ≤ ${TARGETS.healthP99Ms} ms, every answer within ${TARGETS.answerMs} ms or refused): ${allMet ? 'all met' : 'NOT all met'}.`,
  );
}

async function replayRealSearches(port: number, chats: readonly string[], ready: Line): Promise<void> {
  const queries = realQueries(chats, Math.ceil(OPTIONS.realQueries / 2));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const routes = ['/conversations/search', '/messages/search', '/conversations/search?limit=1000', '/messages/search?limit=1000'];
  const refused = new Map<string, string[]>();
  const times = new Map<string, number[]>();
  const bytes = new Map<string, number[]>();
  try {
    for (const query of queries) {
      for (const route of routes) {
        const answer = await send(agent, port, 'POST', route, JSON.stringify(engines([query])));
        (times.get(route) ?? times.set(route, []).get(route)!).push(answer.ms);
        (bytes.get(route) ?? bytes.set(route, []).get(route)!).push(answer.bytes);
        if (answer.status !== 200)
          (refused.get(route) ?? refused.set(route, []).get(route)!).push(`${statusOf(answer)}: ${query.slice(0, 60)}`);
      }
    }
  } finally {
    agent.destroy();
  }
  console.log(
    `\nReal searches: ${queries.length} queries of the chats' own words (half of 1–3 words drawn by frequency, half of 4–32 words pasted from a chat), one engine each, over HTTP, one at a time`,
  );
  console.log('| route | requests | refused | p50 ms | p99 ms | max ms | largest answer KB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const route of routes) {
    const ms = times.get(route)!;
    console.log(
      `| POST ${route} | ${ms.length} | ${refused.get(route)?.length ?? 0} | ${fixed(percentile(ms, 0.5), 1)} | ${fixed(percentile(ms, 0.99), 1)} | ${fixed(max(ms), 1)} | ${fixed(max(bytes.get(route)!) / 1024, 1)} |`,
    );
  }
  for (const [route, list] of refused) console.log(`- refused on ${route}: ${list.slice(0, 5).join('; ')}`);
  console.log(
    `\nThe same queries' use of each budget, in the server's process, as the service asks the index (1,000 candidates), both scopes: the most any used and the 99th percentile, against the budget`,
  );
  console.log('| budget | limit | most used | share | p99 used |');
  console.log('|---|---|---|---|---|');
  for (const name of ['typoSpellings', 'prefixTerms', 'postings'] as const) {
    const most = Number(ready[`${name}Max`]);
    console.log(
      `| ${name} | ${SEARCH_BUDGET[name].toLocaleString('en-US')} | ${most.toLocaleString('en-US')} | ${fixed((most / SEARCH_BUDGET[name]) * 100, 1)}% | ${Number(ready[`${name}P99`]).toLocaleString('en-US')} |`,
    );
  }
  console.log(
    `(recordChars is the answer's: a page of 1,000 records of these queries read at most ${fixed(max([...bytes.values()].flat()) / 1e6, 1)} MB, against ${(SEARCH_BUDGET.recordChars / 1e6).toFixed(0)} M characters.)`,
  );
}

async function main(): Promise<void> {
  // The store, the common words and the real searches all come from the developer chats.
  const skipped = skippedForData('bench:attacks', devChats());
  if (skipped) {
    console.error(skipped);
    return;
  }
  console.log(
    `bench:attacks, ${new Date().toISOString()}, Node ${process.version}, ${availableParallelism()} CPUs; ${OPTIONS.conversations} conversations × ${OPTIONS.messages} messages, ${OPTIONS.hostile > 0 ? `every ${OPTIONS.hostile}th hostile` : 'none hostile'}; texts from ${DEVCHATS}`,
  );
  const chats = readChats();
  const common = commonWords(wordBag(chats), 200);
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-attacks-'));
  const interrupted = () => {
    for (const child of live) child.kill('SIGKILL');
    void rm(root, { recursive: true, force: true }).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const dir = path.join(root, 'store');
    const t0 = performance.now();
    const builder = startChild(['build', dir]);
    const built = await builder.next('built', 1_800_000);
    await builder.done;
    console.log(
      `Store built in ${fixed((performance.now() - t0) / 1000, 1)} s: ${fixed(Number(built.textChars) / 1e6, 1)} M characters of text.`,
    );
    const server = startChild(['serve', dir]);
    const ready = await server.next('port', 1_800_000);
    const port = Number(ready.port);
    console.log(`Server opened the store and read its index in ${fixed(Number(ready.openMs))} ms.`);
    try {
      await replayAttacks(server, port, common);
      await replayRealSearches(port, chats, ready);
    } finally {
      for (const child of live) child.kill('SIGTERM');
      await server.done;
    }
  } finally {
    for (const child of live) child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
}

async function child(args: string[]): Promise<void> {
  const [mode, dir] = args as [string, string];
  try {
    if (mode === 'build') await buildChild(dir);
    else if (mode === 'serve') await serveChild(dir);
    else if (mode === 'bodies') {
      const common = commonWords(wordBag(readChats()), 200);
      await writeFile(dir, JSON.stringify(Object.fromEntries(attacks(common).map((attack) => [attack.name, attack]))));
    } else throw new Error(`unknown mode ${mode}`);
  } catch (error) {
    print({ error: (error as Error).message });
    console.error(error);
    process.exitCode = 1;
  }
}

if (process.argv[2] === 'child') await child(process.argv.slice(3));
else await main();
