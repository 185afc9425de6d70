/**
 * `npm run bench:streams`: what change streams cost the server, and whether one subscriber that
 * stops reading slows anyone else. A server process (the JSON-file store, `startHttpServer`) and
 * this process as its subscribers:
 * - 1,000 subscribers (STREAMS_SUBSCRIBERS) to /conversations/stream/identifiers: the server's RSS
 *   and heap after a GC, before they connect and once each has its first frame;
 * - then, in alternating rounds (STREAMS_ROUNDS), durable writes (POST /messages/create, one at a
 *   time: each changes a conversation, so every subscriber is sent a frame) with an import of a
 *   conversation of 15,000 messages and its deletion after every 50 (not timed), while one more subscriber, to
 *   /messages/stream/identifiers, either reads (`none stalled`) or stopped reading after its first
 *   frame (`one stalled`). The imports fill the stalled one's socket (the kernel's buffers first,
 *   a few MiB) until the server drops it (close code 1013); p50/p99 of the writes are compared;
 * - last, the same writes once every subscriber has left, for reference.
 *
 * Bounded: the subscribers connect within 120 s, each phase's frames arrive within 60 s, and the
 * stalled subscriber's close is awaited 35 s at most. Figures go to stdout, progress to stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { latencySummary } from './stats.js';

const SELF = fileURLToPath(import.meta.url);
const env = process.env;
const SUBSCRIBERS = Number(env.STREAMS_SUBSCRIBERS ?? 1_000);
const ROUNDS = Number(env.STREAMS_ROUNDS ?? 4);
const WRITES = Number(env.STREAMS_WRITES ?? 150);
const IMPORT_EVERY = 50;
const IMPORT_MESSAGES = 15_000;
const MiB = 1024 * 1024;

/** The server: prints its port, then answers each `measure` line on stdin with its memory and open streams. */
async function child(dataDir: string): Promise<void> {
  const { createJsonFileRepository, createService } = await import('../src/index.js');
  const { createFakeSummarizer } = await import('../src/summarizers/index.js');
  const { startHttpServer } = await import('../adapters/hono/serve.js');
  const repository = await createJsonFileRepository({ file: path.join(dataDir, 'db.json') });
  // Deletes are final (no trash): the conversations imported and deleted between writes must not
  // stay in the store, which would grow by 15,000 messages each time and slow the later rounds.
  const service = await createService({ repository, summarizer: createFakeSummarizer(), trash: { keepDays: 0 } });
  const server = await startHttpServer(service, { port: 0, maxConnections: SUBSCRIBERS + 100, shutdownGraceMs: 1_000 });
  const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line !== 'measure') return;
    globalThis.gc?.();
    globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    say({ rss, heapUsed, streams: server.streams });
  });
  process.stdin.on('end', async () => {
    await server.close();
    await service.close();
    process.exit(0);
  });
  say({ port: server.port });
}

/** The child's JSON lines, one at a time. */
function startServer(dataDir: string): { child: ChildProcess; next(): Promise<Record<string, number>> } {
  const flags = (env.STREAMS_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--expose-gc', '--import', 'tsx', SELF, 'child', dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Record<string, number>[] = [];
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    if (!text.startsWith('{')) return;
    lines.push(JSON.parse(text) as Record<string, number>);
    wake?.();
  });
  return {
    child,
    async next() {
      const deadline = performance.now() + 120_000;
      while (lines.length === 0) {
        if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
        if (performance.now() > deadline) throw new Error('the server said nothing in 120 s');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 1_000);
        });
      }
      return lines.shift()!;
    },
  };
}

/** A subscriber that counts the ids it is sent. */
interface Subscriber {
  readonly socket: WebSocket;
  ids: number;
  /** The last id of the last frame. */
  last: string | undefined;
  readonly first: Promise<void>;
  readonly closed: Promise<number>;
}

/** `counting: false` reads the frames without parsing them: the extra subscriber's large frames cost this process nothing to speak of. */
function subscribe(url: string, counting = true): Subscriber {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  let frames = 0;
  let gotFirst!: () => void;
  const subscriber: Subscriber = {
    socket,
    ids: 0,
    last: undefined,
    first: new Promise<void>((resolve, reject) => {
      gotFirst = resolve;
      socket.once('error', reject);
    }),
    closed: new Promise<number>((resolve) => socket.once('close', (code) => resolve(code))),
  };
  socket.on('message', (data) => {
    // The first frame is every id there was: only later ones count.
    if (frames++ === 0) return gotFirst();
    if (!counting) return;
    const { iterable } = JSON.parse(String(data)) as { iterable: { conversation?: { id: string } }[] };
    subscriber.ids += iterable.length;
    subscriber.last = iterable.at(-1)?.conversation?.id;
  });
  return subscriber;
}

async function post(base: string, route: string, body: object): Promise<{ id: string }> {
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

const until = async (done: () => boolean, ms: number, what: string) => {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cms-bench-streams-'));
  const server = startServer(dataDir);
  const subscribers: Subscriber[] = [];
  try {
    const { port } = await server.next();
    const base = `http://127.0.0.1:${port}`;
    const ws = `ws://127.0.0.1:${port}`;
    const measure = async () => {
      server.child.stdin!.write('measure\n');
      return server.next();
    };
    const conversation = await post(base, '/conversations/create', { type: 'COPILOT', name: 'Streams bench' });
    const write = () =>
      post(base, '/messages/create', {
        conversation: { id: conversation.id },
        role: 'USER',
        fragment: { string: { raw: 'A message to stream.' } },
      });
    // An import of a conversation of many messages, then its deletion: two frames of IMPORT_MESSAGES
    // ids for a subscriber of the messages stream, and a store that does not grow.
    const importAndDelete = async () => {
      const imported = await post(base, '/conversations/create', { type: 'COPILOT', messages: bulk });
      const response = await fetch(`${base}/conversations/${imported.id}/delete`, { method: 'POST' });
      if (response.status !== 204) throw new Error(`POST /conversations/{id}/delete: ${response.status}`);
    };
    const bulk = Array.from({ length: IMPORT_MESSAGES }, (_, i) => ({
      role: 'USER',
      fragment: { string: { raw: `Imported message ${i}.` } },
    }));
    // Warm the server's code paths (a write, an import, a stream) before the first measure.
    await write();
    const warm = subscribe(`${ws}/conversations/stream/identifiers`);
    await warm.first;
    warm.socket.close();
    await warm.closed;

    const before = await measure();
    console.error(`streams: connecting ${SUBSCRIBERS} subscribers`);
    const connectBy = performance.now() + 120_000;
    for (let i = 0; i < SUBSCRIBERS; i += 50) {
      const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, () => subscribe(`${ws}/conversations/stream/identifiers`));
      subscribers.push(...batch);
      await Promise.all(batch.map((subscriber) => subscriber.first));
      if (performance.now() > connectBy) throw new Error(`only ${subscribers.length} subscribers connected in 120 s`);
    }
    const after = await measure();
    if (after.streams !== SUBSCRIBERS) throw new Error(`the server has ${after.streams} streams open, not ${SUBSCRIBERS}`);

    const phases: Record<'none stalled' | 'one stalled', number[]> = { 'none stalled': [], 'one stalled': [] };
    const drops: { bytesWritten: number; code: number }[] = [];
    const perRound: Record<'none stalled' | 'one stalled', number[]> = { 'none stalled': [], 'one stalled': [] };
    let fewest = 1;
    let extraImports = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of ['none stalled', 'one stalled'] as const) {
        console.error(`streams: round ${round + 1}/${ROUNDS}, ${phase}`);
        const extra = subscribe(`${ws}/messages/stream/identifiers`, false);
        await extra.first;
        if (phase === 'one stalled') extra.socket.pause();
        const counts = subscribers.map((subscriber) => subscriber.ids);
        const firstOfRound = phases[phase].length;
        let writes = 0;
        let importMs = 0;
        const phaseStart = performance.now();
        for (let i = 0; i < WRITES; i++) {
          const started = performance.now();
          await write();
          phases[phase].push(performance.now() - started);
          writes++;
          if ((i + 1) % IMPORT_EVERY === 0) {
            const t = performance.now();
            await importAndDelete();
            importMs += performance.now() - t;
            writes += 2;
          }
        }
        perRound[phase].push(latencySummary(phases[phase].slice(firstOfRound)).p99);
        // Every subscriber is sent the last change (a new conversation): none was slowed out. Each
        // write changes the same conversation, so a frame that waited may hold several writes.
        console.error(
          `  ${Math.round((performance.now() - phaseStart) / 1000)} s, of which imports and deletions ${Math.round(importMs / 1000)} s`,
        );
        const marker = await post(base, '/conversations/create', { type: 'COPILOT', name: 'The last change' });
        await until(
          () => subscribers.every((subscriber) => subscriber.last === marker.id),
          60_000,
          'every subscriber sent the last change',
        );
        fewest = Math.min(fewest, ...subscribers.map((subscriber, j) => (subscriber.ids - counts[j]!) / (writes + 1)));
        if (phase === 'one stalled') {
          // Imports (untimed) until the server has dropped it: how many depends on the kernel's
          // socket buffers, which take a few MiB first.
          for (let i = 0; i < 20 && (await measure()).streams !== SUBSCRIBERS; i++) {
            await importAndDelete();
            extraImports++;
          }
          const { streams } = await measure();
          if (streams !== SUBSCRIBERS) throw new Error(`the stalled subscriber was not dropped (${streams} streams open)`);
          const bytesWritten = extra.socket.bufferedAmount;
          extra.socket.resume();
          const code = await Promise.race([extra.closed, new Promise<number>((resolve) => setTimeout(() => resolve(0), 35_000))]);
          drops.push({ bytesWritten, code });
        }
        extra.socket.terminate();
        await extra.closed;
      }
    }
    const end = await measure();
    for (const subscriber of subscribers) subscriber.socket.close();
    await Promise.all(subscribers.map((subscriber) => subscriber.closed));
    // The same writes and imports once every subscriber has gone: what the streams add to a write.
    console.error('streams: writes with no subscriber');
    const alone: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const started = performance.now();
      await write();
      alone.push(performance.now() - started);
      if ((i + 1) % IMPORT_EVERY === 0) await importAndDelete();
    }

    const none = latencySummary(phases['none stalled']);
    const stalled = latencySummary(phases['one stalled']);
    const fixed = (n: number, digits = 1) => n.toFixed(digits);
    console.log(`\n## Change streams (${SUBSCRIBERS.toLocaleString('en-US')} subscribers, JSON-file store)\n`);
    console.log('| server | RSS | heap |');
    console.log('| --- | --- | --- |');
    console.log(`| before the subscribers | ${fixed(before.rss! / MiB)} MiB | ${fixed(before.heapUsed! / MiB)} MiB |`);
    console.log(
      `| ${SUBSCRIBERS} subscribers, each past its first frame | ${fixed(after.rss! / MiB)} MiB | ${fixed(after.heapUsed! / MiB)} MiB |`,
    );
    console.log(
      `| cost of the subscribers | **${fixed((after.rss! - before.rss!) / MiB)} MiB** | ${fixed((after.heapUsed! - before.heapUsed!) / MiB)} MiB |`,
    );
    console.log(
      `| after the rounds (${SUBSCRIBERS} still open; the store grew by the imports) | ${fixed(end.rss! / MiB)} MiB | ${fixed(end.heapUsed! / MiB)} MiB |`,
    );
    console.log(
      `\nDurable POST /messages/create, one at a time, ${ROUNDS} × ${WRITES} per phase, with ${SUBSCRIBERS} subscribers sent each:\n`,
    );
    const noSubscriber = latencySummary(alone);
    console.log('| phase | p50 ms | p99 ms |');
    console.log('| --- | --- | --- |');
    console.log(`| no subscriber (after they left, ${WRITES} writes) | ${fixed(noSubscriber.p50, 2)} | ${fixed(noSubscriber.p99, 2)} |`);
    console.log(`| none stalled | ${fixed(none.p50, 2)} | ${fixed(none.p99, 2)} |`);
    console.log(`| one stalled | ${fixed(stalled.p50, 2)} | ${fixed(stalled.p99, 2)} |`);
    const ratios = perRound['one stalled'].map((p99, i) => p99 / perRound['none stalled'][i]!).sort((a, b) => a - b);
    console.log(`\np99 one stalled / none stalled: **${fixed(stalled.p99 / none.p99, 2)}**`);
    console.log(
      `Each round's p99, none / one stalled: ${perRound['none stalled'].map((p99, i) => `${fixed(p99)} / ${fixed(perRound['one stalled'][i]!)}`).join(', ')} ms; ` +
        `the median of the rounds' ratios: ${fixed(ratios[Math.floor(ratios.length / 2)]!, 2)}`,
    );
    console.log(
      `The stalled subscriber, each round: dropped, close code ${drops.map((drop) => drop.code).join(', ')} (1013: too slow), after ${extraImports} imports and deletions past the timed writes in all.`,
    );
    console.log(
      `Entries sent per change, the fewest any subscriber got in a phase: ${fixed(fewest, 3)} (below 1: changes of one conversation coalesced in a frame that waited).`,
    );
  } finally {
    for (const subscriber of subscribers) subscriber.socket.terminate();
    server.child.stdin!.end();
    if (server.child.exitCode === null) await new Promise((resolve) => server.child.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') await child(process.argv[3]!);
else await main();
