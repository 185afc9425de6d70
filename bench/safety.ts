/**
 * `npm run bench:safety`: what one very long conversation costs the rest of the service.
 *
 * 1. Linear costs. For conversations of 1,000, 5,000 and 20,000 short messages in the JSON-file
 *    store, the time of `summarizeConversation` and of `deleteConversation`, with the embedded
 *    summarizer and with the fake one (which answers at once, so what is left is the store's
 *    cost). Each measurement runs in a fresh process, killed if one step takes longer than the cap;
 *    a size over the cap is not tried again in later rounds. Rounds alternate between sizes (the
 *    machine's speed drifts, see bench/index.ts) and each figure is the median over the rounds.
 *    Linear code grows by the ratio of the sizes (20 from 1,000 to 20,000).
 * 2. Concurrent latency. One HTTP server over the JSON-file store with the embedded summarizer;
 *    the latency of GET /models from looping keep-alive clients, (a) with nothing else running,
 *    (b) while one other client creates a conversation of 20,000 messages in one body, then
 *    summarizes, renames and reads it. Also the server's event-loop delay (`monitorEventLoopDelay`).
 *    Three processes, as real clients are other processes than the server: the server runs in a
 *    child process of its own (it warms the summarizer up before it says it is ready, since its
 *    first summarize loads the model: that one-time cost is reported apart, and it measures its own
 *    loop delay over each phase when asked on stdin); the GET /models clients run in the main
 *    process, so their latencies include their own (small) client work; the heavy client runs in a
 *    second child, started after (a), so that its megabytes of requests and answers (serialized
 *    before its clock starts, received but not parsed) load neither the server's event loop nor the
 *    GET clients'. They still share the machine's CPUs.
 *
 * A conversation the service refuses to create at once (PAYLOAD_TOO_LARGE, 413) is created with as
 * many messages as it accepts and the rest are appended one by one; the output says so.
 *
 * Env: SAFETY_SIZES=1000,5000,20000 (messages per conversation), SAFETY_ROUNDS=3,
 * SAFETY_CAP_SECONDS=120 (per step of part 1, and for the whole of (b)), SAFETY_BASELINE_SECONDS=3,
 * SAFETY_CLIENTS=4 (GET /models loops), SAFETY_HEAVY_MESSAGES=20000, SAFETY_PARTS=linear,latency
 * to run one part only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createService, isServiceError } from '../src/index.js';
import { createExtractiveSummarizer, createFakeSummarizer } from '../src/summarizers/index.js';
import { latencySummary } from './stats.js';

const SIZES = (process.env.SAFETY_SIZES ?? '1000,5000,20000').split(',').map(Number);
const ROUNDS = Number(process.env.SAFETY_ROUNDS ?? 3);
const CAP_MS = Number(process.env.SAFETY_CAP_SECONDS ?? 120) * 1000;
const BASELINE_MS = Number(process.env.SAFETY_BASELINE_SECONDS ?? 3) * 1000;
const CLIENTS = Number(process.env.SAFETY_CLIENTS ?? 4);
const HEAVY_MESSAGES = Number(process.env.SAFETY_HEAVY_MESSAGES ?? 20_000);
const PARTS = (process.env.SAFETY_PARTS ?? 'linear,latency').split(',');
const SELF = fileURLToPath(import.meta.url);

const SUMMARIZERS = ['embedded', 'fake'] as const;
type SummarizerName = (typeof SUMMARIZERS)[number];
const STEPS = ['ready', 'create', 'summarize', 'delete'] as const;
type Step = (typeof STEPS)[number];

interface SeededMessage {
  readonly role: 'USER' | 'ASSISTANT';
  readonly fragment: { readonly string: { readonly raw: string } };
}

/** `count` short messages, alternating USER and ASSISTANT, numbered from `from`. */
function chatMessages(count: number, from = 0): SeededMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    role: (from + i) % 2 === 0 ? 'USER' : 'ASSISTANT',
    fragment: { string: { raw: `message ${from + i} about the build` } },
  }));
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const grouped = (value: number) => value.toLocaleString('en-US');
const bytes = (count: number) => (count < 2 ** 20 ? `${fixed(count / 2 ** 10, 1)} KiB` : `${fixed(count / 2 ** 20, 1)} MiB`);

/** The answer of one attempt to create a conversation: its id, or a refusal as too large. */
type CreateAttempt = { id: string } | { tooLarge: true; limit?: number };

/**
 * Creates a conversation of `messages`. When the service refuses them all at once as too large,
 * creates it with as many as it accepts (its stated limit, else half as many, and so on) and
 * appends the rest one by one, in order: the conversation ends up the same.
 */
async function createConversationOf(
  messages: SeededMessage[],
  create: (messages: SeededMessage[]) => Promise<CreateAttempt>,
  append: (conversation: string, message: SeededMessage) => Promise<void>,
): Promise<{ id: string; firstBatch: number }> {
  let batch = messages.length;
  for (;;) {
    const attempt = await create(messages.slice(0, batch));
    if ('id' in attempt) {
      for (const message of messages.slice(batch)) await append(attempt.id, message);
      return { id: attempt.id, firstBatch: batch };
    }
    const smaller = Math.min(attempt.limit ?? Math.floor(batch / 2), batch - 1);
    if (smaller < 1) throw new Error('The service refuses even a conversation of one message as too large.');
    batch = smaller;
  }
}

// ---------------------------------------------------------------------------------------------
// Part 1: linear costs, one measuring process per (size, summarizer, round).

/** In a child process: prints one JSON line per step, `{ step, ms }`, as soon as it is done. */
async function measureInThisProcess(dataDir: string, size: number, summarizerName: SummarizerName): Promise<void> {
  const report = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const summarizer = summarizerName === 'fake' ? createFakeSummarizer() : createExtractiveSummarizer();
  const service = await createService({ dataDir, summarizer });
  const createInProcess = (messages: SeededMessage[]) =>
    createConversationOf(
      messages,
      async (batch) => {
        try {
          return { id: (await service.createConversation({ type: 'COPILOT', messages: batch }, { transferables: false })).id };
        } catch (error) {
          if (isServiceError(error) && error.code === 'PAYLOAD_TOO_LARGE') return { tooLarge: true, limit: error.details.limit };
          throw error;
        }
      },
      async (id, message) => void (await service.createMessage({ ...message, conversation: { id } }, { transferables: false })),
    );
  try {
    // Unmeasured: the embedded summarizer loads its language model on first use, and every code
    // path is compiled on its first run; a long-running service pays neither per call.
    const warm = await createInProcess(chatMessages(50));
    await service.summarizeConversation(warm.id);
    await service.deleteConversation(warm.id);
    report({ step: 'ready' });

    const messages = chatMessages(size);
    let started = performance.now();
    const { id, firstBatch } = await createInProcess(messages);
    report({ step: 'create', ms: performance.now() - started, firstBatch });
    started = performance.now();
    await service.summarizeConversation(id);
    report({ step: 'summarize', ms: performance.now() - started });
    started = performance.now();
    await service.deleteConversation(id);
    report({ step: 'delete', ms: performance.now() - started });
  } finally {
    await service.close();
  }
}

interface LinearRun {
  /** Milliseconds of each step done. */
  readonly ms: Partial<Record<Step, number>>;
  /** Messages of the first create call, when the service refused them all at once. */
  firstBatch?: number;
  /** The step that was still running when the cap killed the process. */
  overCap?: Step;
}

/** Runs one measurement in a fresh process (its own heap and data folder) under the per-step cap. */
async function runMeasurement(size: number, summarizer: SummarizerName): Promise<LinearRun> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `cms-safety-${size}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'measure', dataDir, String(size), summarizer], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const run: LinearRun = { ms: {} };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The cap restarts at every step, so it bounds each step rather than the whole process.
  let timer: NodeJS.Timeout | undefined;
  const armCap = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      run.overCap = STEPS.find((step) => run.ms[step] === undefined);
      child.kill('SIGKILL');
    }, CAP_MS);
  };
  armCap();
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const { step, ms, firstBatch } = JSON.parse(line) as { step: Step; ms?: number; firstBatch?: number };
      run.ms[step] = ms ?? 0;
      if (firstBatch !== undefined && firstBatch < size) run.firstBatch = firstBatch;
      armCap();
    }
    const code = await exited;
    if (code !== 0 && !run.overCap) throw new Error(`the measurement of ${size} messages (${summarizer}) exited with ${code}`);
  } finally {
    clearTimeout(timer);
    await rm(dataDir, { recursive: true, force: true });
  }
  return run;
}

async function linearCosts(): Promise<void> {
  const runs = new Map<string, LinearRun[]>();
  const key = (size: number, summarizer: SummarizerName) => `${size} ${summarizer}`;
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      for (const summarizer of SUMMARIZERS) {
        const earlier = runs.get(key(size, summarizer)) ?? [];
        // Over the cap once, over it again: another try would only spend the cap once more.
        if (earlier.some((r) => r.overCap)) continue;
        const run = await runMeasurement(size, summarizer);
        runs.set(key(size, summarizer), [...earlier, run]);
        const figures = STEPS.filter((s) => s !== 'ready' && run.ms[s] !== undefined).map((s) => `${s} ${fixed(run.ms[s]!)} ms`);
        if (run.overCap) figures.push(`${run.overCap} over the cap`);
        console.error(`  ${grouped(size)} messages, ${summarizer}: ${figures.join(', ')}`);
      }
    }
    console.error(`linear costs: round ${round + 1} of ${ROUNDS}`);
  }

  /** The median of a step over the rounds, or Infinity when a round went over the cap there. */
  const stepMs = (size: number, summarizer: SummarizerName, step: Step): number => {
    const all = runs.get(key(size, summarizer)) ?? [];
    if (all.some((r) => r.overCap === step)) return Infinity;
    const done = all.map((r) => r.ms[step]).filter((ms): ms is number => ms !== undefined);
    return done.length ? median(done) : NaN;
  };
  const cell = (ms: number) => (ms === Infinity ? `> ${CAP_MS / 1000} s` : fixed(ms, ms < 100 ? 1 : 0));
  const perMessage = (ms: number, size: number) => (Number.isFinite(ms) ? fixed((ms * 1000) / size, 1) : 'n/a');

  console.log(
    `\nLinear costs: one conversation of N short messages in the JSON-file store (fsync), in-process; medians of ${ROUNDS} rounds`,
  );
  console.log('| messages | summarizer | create ms | summarize ms | µs/message | delete ms | µs/message |');
  console.log('|---|---|---|---|---|---|---|');
  for (const size of SIZES) {
    for (const summarizer of SUMMARIZERS) {
      const [create, summarize, remove] = (['create', 'summarize', 'delete'] as const).map((s) => stepMs(size, summarizer, s)) as [
        number,
        number,
        number,
      ];
      const batches = (runs.get(key(size, summarizer)) ?? []).map((r) => r.firstBatch).filter((b) => b !== undefined);
      const createNote = batches.length ? ` (${grouped(batches[0]!)} at once, the rest appended)` : '';
      console.log(
        `| ${grouped(size)} | ${summarizer} | ${cell(create)}${createNote} | ${cell(summarize)} | ${perMessage(summarize, size)} | ${cell(remove)} | ${perMessage(remove, size)} |`,
      );
    }
  }

  const [smallest, largest] = [Math.min(...SIZES), Math.max(...SIZES)];
  if (smallest !== largest) {
    console.log(
      `\nGrowth from ${grouped(smallest)} to ${grouped(largest)} messages (linear ≈ ${fixed(largest / smallest, 1)}, quadratic ≈ ${fixed((largest / smallest) ** 2)})`,
    );
    for (const step of ['summarize', 'delete'] as const) {
      const ratios = SUMMARIZERS.map((s) => `${s} ×${fixed(stepMs(largest, s, step) / stepMs(smallest, s, step), 1)}`);
      console.log(`- ${step}: ${ratios.join(', ')}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: latency of a cheap route while a heavy client works, over HTTP, in three processes.

/** How long a child of part 2 has after SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;
/** How long a child of part 2 has to get ready: start Node, load the library, warm up. */
const READY_MS = Math.max(CAP_MS, 60_000);
/** Unmeasured GET /models loops before phase (a): the first requests compile both ends' code. */
const CLIENT_WARM_MS = 500;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Whether `promise` settles within `ms`; clears its timer either way, so none keeps the process alive. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
/** One JSON line on stdout: how the children of part 2 talk to the main process. */
const reportLine = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** A child process of this file that prints JSON lines on stdout and reads command lines on stdin. */
interface Child {
  /** The next JSON line, or undefined after `timeoutMs`; throws if the child's output ends first. */
  next(timeoutMs: number): Promise<Record<string, unknown> | undefined>;
  /** Sends one command line to the child. */
  tell(command: string): void;
  /** SIGTERM, then SIGKILL if it is still running after STOP_GRACE_MS; resolves once it exited. */
  stop(): Promise<void>;
}

function spawnChild(mode: string, ...args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, mode, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      console.error(`  the ${mode} process failed: ${error.message}`);
      resolve();
    });
  });
  // Writing to a child that is gone fails with EPIPE: its end shows on its output instead.
  child.stdin!.on('error', () => {});
  const queue: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout! })
    .on('line', (line) => {
      queue.push(line);
      wake?.();
    })
    .on('close', () => {
      ended = true;
      wake?.();
    });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    async next(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const line = queue.shift();
        if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
        if (ended) {
          await settlesWithin(exited, 1_000);
          throw new Error(`the ${mode} process ended (${child.signalCode ?? `exit code ${child.exitCode}`})`);
        }
        const left = deadline - performance.now();
        if (left <= 0) return undefined;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    },
    tell(command) {
      if (running()) child.stdin!.write(`${command}\n`);
    },
    async stop() {
      if (!running()) return;
      child.kill('SIGTERM');
      if (await settlesWithin(exited, STOP_GRACE_MS)) return;
      console.error(`  the ${mode} process did not exit ${STOP_GRACE_MS / 1000} s after SIGTERM: killed`);
      child.kill('SIGKILL');
      if (!(await settlesWithin(exited, STOP_GRACE_MS))) console.error(`  the ${mode} process did not exit after SIGKILL either`);
    },
  };
}

/** Reads `child`'s lines until one has `key`, for at most `timeoutMs`; undefined after that. */
async function lineWith(child: Child, key: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const line = await child.next(deadline - performance.now());
    if (line === undefined || key in line) return line;
  }
}

/**
 * In the server's child process: the service over a JSON-file store in `dataDir` with the embedded
 * summarizer, on an HTTP server. Warms the summarizer up, then prints `{ port, warmMs, warmStallMs }`.
 * Its own event loop's delay is measured all along: on stdin, `reset` restarts the measurement
 * (answered `{ reset: true }`) and `report` answers `{ loopDelay: { p99, max } }` in milliseconds.
 * SIGTERM, or the end of stdin, closes the server and the service and exits.
 */
async function serveInThisProcess(dataDir: string): Promise<void> {
  const { startHttpServer } = await import('../adapters/hono/serve.js');
  // Sampled every 5 ms rather than the default 10, so that shorter stalls show too.
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const service = await createService({ dataDir });
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1' });
  let closing: Promise<void> | undefined;
  const shutDown = () =>
    (closing ??= (async () => {
      let code = 0;
      try {
        await server.close();
        await service.close();
      } catch (error) {
        console.error(error);
        code = 1;
      }
      process.exit(code);
    })());
  process.once('SIGTERM', () => void shutDown());

  // Unmeasured warm-up: the first summarize loads the embedded summarizer's model, a one-time cost
  // of a fresh server; its time and the loop's longest stall are printed apart.
  histogram.reset();
  const started = performance.now();
  const warm = await service.createConversation({ type: 'COPILOT', messages: chatMessages(50) }, { transferables: false });
  await service.summarizeConversation(warm.id);
  reportLine({ port: server.port, warmMs: performance.now() - started, warmStallMs: histogram.max / 1e6 });

  createInterface({ input: process.stdin })
    .on('line', (command) => {
      if (command === 'reset') {
        histogram.reset();
        reportLine({ reset: true });
      } else if (command === 'report') {
        reportLine({ loopDelay: { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 } });
      }
    })
    .on('close', () => void shutDown());
}

interface Answer {
  readonly status: number;
  readonly body: Buffer;
}

/** One HTTP request on `agent`'s kept-alive connections; resolves with the whole answer. */
function send(agent: Agent, base: URL, method: 'GET' | 'POST', route: string, body: Buffer = Buffer.alloc(0)): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = method === 'POST' ? { 'Content-Type': 'application/json', 'Content-Length': body.length } : {};
    const request = httpRequest(
      { host: base.hostname, port: base.port, method, path: route, agent, headers, timeout: CAP_MS },
      (response) => {
        const chunks: Buffer[] = [];
        response
          .on('data', (chunk: Buffer) => chunks.push(chunk))
          .on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
          .on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`${method} ${route} gave no answer in ${CAP_MS / 1000} s`))).on('error', reject);
    request.end(body.length ? body : undefined);
  });
}

/** Throws unless the answer has one of the expected statuses. */
function expectStatus(answer: Answer, what: string, ...expected: number[]): Answer {
  if (!expected.includes(answer.status)) throw new Error(`${what} answered ${answer.status}: ${answer.body.subarray(0, 500)}`);
  return answer;
}

interface Polling {
  readonly latencies: number[];
  failures: number;
}

/**
 * GET /models in a loop until `stopped()`: one client of the latency measurement. An error after
 * the stop is the agent being destroyed under a request, not a failure of the server.
 */
async function pollModels(agent: Agent, base: URL, stopped: () => boolean, polling: Polling): Promise<void> {
  while (!stopped()) {
    const started = performance.now();
    try {
      const answer = await send(agent, base, 'GET', '/models');
      if (answer.status !== 200) polling.failures++;
    } catch (error) {
      if (stopped()) return;
      polling.failures++;
      console.error(`  GET /models failed: ${(error as Error).message}`);
    }
    polling.latencies.push(performance.now() - started);
  }
}

interface Phase {
  readonly polling: Polling;
  /** The server process's event-loop delay over the phase; NaN when it did not answer in time. */
  readonly loopDelay: { p99: number; max: number };
}

/**
 * Runs the GET /models clients, in this process, until `work` settles; the server process
 * measures its event loop's delay over the same span.
 */
async function measurePhase<T>(base: URL, server: Child, work: () => Promise<T>): Promise<Phase & { result: T }> {
  server.tell('reset');
  if (!(await lineWith(server, 'reset', CAP_MS)))
    throw new Error(`the server did not reset its loop-delay measurement in ${CAP_MS / 1000} s`);
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const polling: Polling = { latencies: [], failures: 0 };
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, () => pollModels(agent, base, () => stopped, polling));
  try {
    const result = await work();
    // A server still busy with the heavy client's last request (stopped at the cap) may answer
    // late or not at all: its figures are then n/a.
    server.tell('report');
    const answer = (await lineWith(server, 'loopDelay', CAP_MS))?.loopDelay as Phase['loopDelay'] | undefined;
    return { result, polling, loopDelay: answer ?? { p99: NaN, max: NaN } };
  } finally {
    stopped = true;
    await Promise.all(clients);
    agent.destroy();
  }
}

interface HeavyStep {
  readonly name: string;
  readonly ms: number;
  readonly note?: string;
}

/**
 * The heavy client: a conversation of HEAVY_MESSAGES in one body, then summarize, rename and read
 * it, one request after another. Hands each step's time to `onStep` as it ends, so that a run
 * stopped by the cap still shows the steps it finished. `body` is serialized beforehand.
 */
async function heavyClient(
  agent: Agent,
  base: URL,
  messages: SeededMessage[],
  body: Buffer,
  onStep: (step: HeavyStep) => void,
): Promise<void> {
  let started = performance.now();
  let appended = 0;
  const { id, firstBatch } = await createConversationOf(
    messages,
    async (batch) => {
      // Only a refused first body is serialized here, on the clock: the prepared one is reused.
      const payload = batch.length === messages.length ? body : Buffer.from(JSON.stringify({ type: 'COPILOT', messages: batch }));
      const answer = expectStatus(
        await send(agent, base, 'POST', '/conversations/create?transferables=false', payload),
        'POST /conversations/create',
        200,
        413,
      );
      if (answer.status === 413) {
        const limit = (JSON.parse(answer.body.toString()) as { error?: { limit?: number } }).error?.limit;
        return { tooLarge: true, limit };
      }
      return { id: conversationId(answer.body) };
    },
    async (conversation, message) => {
      const payload = Buffer.from(JSON.stringify({ ...message, conversation: { id: conversation } }));
      expectStatus(await send(agent, base, 'POST', '/messages/create?transferables=false', payload), 'POST /messages/create', 200);
      appended++;
    },
  );
  onStep({
    name: 'POST /conversations/create',
    ms: performance.now() - started,
    note:
      firstBatch === messages.length
        ? `${grouped(messages.length)} messages in one body of ${bytes(body.length)}`
        : `refused 413 with ${grouped(messages.length)}: created with ${grouped(firstBatch)}, then ${grouped(appended)} POST /messages/create one after another`,
  });
  for (const [name, method, route] of [
    ['POST /conversation/{id}/summarize', 'POST', `/conversation/${id}/summarize`],
    ['POST /conversation/{id}/rename', 'POST', `/conversation/${id}/rename`],
    ['GET /conversation/{id}', 'GET', `/conversation/${id}`],
  ] as const) {
    started = performance.now();
    const answer = expectStatus(await send(agent, base, method, route), name, 200);
    onStep({ name, ms: performance.now() - started, note: `${bytes(answer.body.length)} answer` });
  }
}

/**
 * The new conversation's id, read from the start of the answer: it is the first field, and parsing
 * megabytes of JSON would add the client's own work to the step's time. Falls back to parsing.
 */
function conversationId(body: Buffer): string {
  const head = /^\{"id":"([^"]+)"/.exec(body.subarray(0, 200).toString());
  return head?.[1] ?? (JSON.parse(body.toString()) as { id: string }).id;
}

/**
 * In the heavy client's child process: serializes the body of `count` messages, opens its
 * connection to `url` (one GET /models, unmeasured), prints `{ ready: true }`, and on `go` on stdin
 * runs the heavy client, printing `{ step }` per step and `{ done: true }` at the end.
 */
async function heavyInThisProcess(url: string, count: number): Promise<void> {
  const base = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const commands = createInterface({ input: process.stdin });
  try {
    const messages = chatMessages(count);
    const body = Buffer.from(JSON.stringify({ type: 'COPILOT', messages }));
    expectStatus(await send(agent, base, 'GET', '/models'), 'GET /models', 200);
    reportLine({ ready: true });
    const command = await commands[Symbol.asyncIterator]().next();
    // The end of stdin rather than `go`: the main process is gone or gave up.
    if (command.done || command.value !== 'go') return;
    await heavyClient(agent, base, messages, body, (step) => reportLine({ step }));
    reportLine({ done: true });
  } finally {
    commands.close();
    process.stdin.destroy();
    agent.destroy();
  }
}

function printPhase(label: string, phase: Phase): void {
  const { p50, p99 } = latencySummary(phase.polling.latencies);
  // Not Math.max(...latencies): a long phase holds more values than a call takes arguments.
  const max = phase.polling.latencies.reduce((a, b) => Math.max(a, b), 0);
  console.log(
    `| ${label} | ${phase.polling.latencies.length} | ${phase.polling.failures} | ${fixed(p50, 1)} | ${fixed(p99, 1)} | ${fixed(max, 1)} | ${fixed(phase.loopDelay.p99, 1)} | ${fixed(phase.loopDelay.max, 1)} |`,
  );
}

async function concurrentLatency(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cms-safety-http-'));
  let server: Child | undefined;
  let heavyChild: Child | undefined;
  const cleanUp = async () => {
    await heavyChild?.stop();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  // Interrupted (Ctrl-C, SIGTERM): the same clean-up, then the exit the signal would have made.
  const interrupted = (signal: NodeJS.Signals) => void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    server = spawnChild('serve', dataDir);
    const ready = await lineWith(server, 'port', READY_MS);
    if (!ready) throw new Error(`the server was not ready in ${READY_MS / 1000} s`);
    const { port, warmMs, warmStallMs } = ready as { port: number; warmMs: number; warmStallMs: number };
    const base = new URL(`http://127.0.0.1:${port}`);

    await measurePhase(base, server, () => sleep(CLIENT_WARM_MS));
    const baseline = await measurePhase(base, server, () => sleep(BASELINE_MS));

    // Started after (a), so that its start-up (loading Node, tsx and the library, serializing the
    // body) is over before (b) begins; `go` starts its clock.
    heavyChild = spawnChild('heavy', base.href, String(HEAVY_MESSAGES));
    if (!(await lineWith(heavyChild, 'ready', READY_MS))) throw new Error(`the heavy client was not ready in ${READY_MS / 1000} s`);
    const steps: HeavyStep[] = [];
    let overCap = false;
    const heavy = await measurePhase(base, server, async () => {
      heavyChild!.tell('go');
      const deadline = performance.now() + CAP_MS;
      for (;;) {
        const line = await heavyChild!.next(deadline - performance.now());
        if (line === undefined) {
          // At the cap, the heavy client's process ends, and its request under way with it.
          overCap = true;
          await heavyChild!.stop();
          return;
        }
        if (line.step) steps.push(line.step as HeavyStep);
        if (line.done) return;
      }
    });

    console.log(
      `\nGET /models latency from ${CLIENTS} looping keep-alive clients, JSON-file store, embedded summarizer (warm: first summarize took ${fixed(warmMs)} ms, longest loop stall ${fixed(warmStallMs)} ms)`,
    );
    console.log('| phase | requests | failed | p50 ms | p99 ms | max ms | loop delay p99 ms | loop delay max ms |');
    console.log('|---|---|---|---|---|---|---|---|');
    printPhase(`(a) alone, ${BASELINE_MS / 1000} s`, baseline);
    printPhase(`(b) beside a ${grouped(HEAVY_MESSAGES)}-message client`, heavy);
    console.log(
      `\nThe heavy client's steps, one after another${overCap ? ` (stopped at the cap of ${CAP_MS / 1000} s: not finished)` : ''}`,
    );
    for (const step of steps) console.log(`- ${step.name}: ${fixed(step.ms)} ms${step.note ? ` (${step.note})` : ''}`);
    const p99 = latencySummary(heavy.polling.latencies).p99;
    console.log(`\nTarget: GET /models p99 under 100 ms during (b): ${p99 < 100 && !overCap ? 'met' : 'NOT met'} (${fixed(p99, 1)} ms)`);
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    await cleanUp();
  }
}

/** Date, commit and machine, so that figures quoted elsewhere say what they measured. */
function describeRun(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  let commit = 'unknown commit';
  try {
    const subject = git('log', '-1', '--format=%s');
    commit = `${git('log', '-1', '--format=%h')} "${subject.length > 60 ? `${subject.slice(0, 60)}…` : subject}"`;
    if (git('status', '--porcelain', '--untracked-files=no')) commit += ' with uncommitted changes';
  } catch {
    // Not a git checkout: the figures still stand, only unlabelled.
  }
  return `Run ${new Date().toISOString()} on ${commit}; Node ${process.version}, ${availableParallelism()} CPUs`;
}

if (process.argv[2] === 'measure') {
  const [dataDir, size, summarizer] = process.argv.slice(3) as [string, string, SummarizerName];
  await measureInThisProcess(dataDir, Number(size), summarizer);
} else if (process.argv[2] === 'serve') {
  await serveInThisProcess(process.argv[3]!);
} else if (process.argv[2] === 'heavy') {
  await heavyInThisProcess(process.argv[3]!, Number(process.argv[4]));
} else {
  console.log(describeRun());
  if (PARTS.includes('linear')) await linearCosts();
  if (PARTS.includes('latency')) await concurrentLatency();
}
