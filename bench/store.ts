/**
 * `npm run bench:store`: what the JSON-file store costs at the sizes of issue 10.
 *
 * 1. Open time and RSS. Stores of 10,000 and 50,000 conversations of 20 messages each are written
 *    straight to disk in the snapshot's layout (one record per line, every collection present; the
 *    writer is checked byte for byte against the store's own snapshot writer first), each opened in
 *    a fresh process with `createJsonFileRepository({ file })`, once per round, sizes alternating;
 *    figures are medians over the rounds. A conversation is about 13 KB on disk (messages of about
 *    300 characters), so 50,000 make the issue's 0.65 GB, past the longest string V8 allows: a
 *    separate process also tries the old reader (the whole file as one string, then JSON.parse)
 *    on each store, to show where it stops.
 * 2. Bytes written per message append. One conversation grows one `createMessage` at a time (the
 *    JSON-file store, fsync as by default, compaction put off so the journal only grows); at each
 *    checkpoint the journal's growth over the last 100 appends, divided by 100, is the cost of an
 *    append at that length.
 *
 * Everything is built in a temporary folder, removed at the end. Each child process is killed if
 * it runs past its time limit.
 *
 * Env: BENCH_STORE_SIZES=10000,50000 (conversations), BENCH_STORE_ROUNDS=3 (opens per size),
 * BENCH_STORE_MESSAGE_CHARS=300 (characters of each message's text in the built stores),
 * BENCH_STORE_OPEN_TIMEOUT_SECONDS=300 (per open), BENCH_STORE_MIN_FREE_GB=3 (free disk below
 * which stores past 10,000 conversations are skipped), BENCH_STORE_MESSAGES=100,1000,10000,20000
 * (the append checkpoints; the last is how far the conversation grows), BENCH_STORE_APPEND_SECONDS=180
 * (appending stops there, after one last window of 100 appends, printing what was reached). An empty
 * BENCH_STORE_SIZES or BENCH_STORE_MESSAGES skips that part.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import {
  COLLECTION_NAMES,
  type CollectionName,
  type ConversationRecord,
  createJsonFileRepository,
  createService,
  JSON_FILE_FORMAT_VERSION,
  type MessageRecord,
  type WebsiteRecord,
} from '../src/index.js';
import { type SnapshotData, SnapshotFile } from '../src/stores/json-file/snapshot.js';
import { createFakeSummarizer } from '../src/summarizers/index.js';

const SELF = fileURLToPath(import.meta.url);
const list = (value: string) => value.split(',').filter(Boolean).map(Number);
const SIZES = list(process.env.BENCH_STORE_SIZES ?? '10000,50000');
const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? 3);
const MESSAGE_CHARS = Number(process.env.BENCH_STORE_MESSAGE_CHARS ?? 300);
const OPEN_TIMEOUT_MS = Number(process.env.BENCH_STORE_OPEN_TIMEOUT_SECONDS ?? 300) * 1000;
const MIN_FREE_BYTES = Number(process.env.BENCH_STORE_MIN_FREE_GB ?? 3) * 1e9;
const CHECKPOINTS = list(process.env.BENCH_STORE_MESSAGES ?? '100,1000,10000,20000').sort((a, b) => a - b);
const APPEND_MS = Number(process.env.BENCH_STORE_APPEND_SECONDS ?? 180) * 1000;
/** Appends measured before each checkpoint. */
const WINDOW = 100;
/** V8's longest string (2^29 - 24 characters on 64-bit): the old reader's limit. */
const MAX_STRING = (await import('node:buffer')).constants.MAX_STRING_LENGTH;
const MB = 2 ** 20;

// ---------------------------------------------------------------------------------------------
// The built stores: the same records as bench/build-store.ts (20 messages and two website links
// per conversation, one website per two conversations), with ids derived from the position so
// that any record can be written without holding the others, and longer message texts.

const at = { value: '2026-01-01T00:00:00.000Z' };
/** A UUID-shaped id (36 characters, like the service's), unique per kind and index. */
const idOf = (kind: number, index: number) =>
  `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
const [CONVERSATION, MESSAGE, WEBSITE] = [1, 2, 3];
const MESSAGES_PER_CONVERSATION = 20;
const TEXT = 'Use exponential backoff with jitter, cap the delay, and give up after a few tries so the build does not hang. ';

function messageText(chars: number): string {
  return TEXT.repeat(Math.ceil(chars / TEXT.length)).slice(0, chars);
}

const websiteCountFor = (count: number) => Math.max(200, Math.ceil(count / 2));
const linkedWebsites = (i: number, websiteCount: number) => [i % websiteCount, (i * 7 + 3) % websiteCount];

function* recordsOf(collection: CollectionName, count: number, text: string): Generator<object> {
  const websiteCount = websiteCountFor(count);
  if (collection === 'conversations') {
    for (let i = 0; i < count; i++) {
      const conversation: ConversationRecord = {
        id: idOf(CONVERSATION, i),
        type: 'COPILOT',
        name: `Conversation ${i}`,
        created: at,
        updated: at,
        messages: Array.from({ length: MESSAGES_PER_CONVERSATION }, (_, m) => idOf(MESSAGE, i * MESSAGES_PER_CONVERSATION + m)),
        annotations: [],
        anchors: [],
        assets: [],
        websites: linkedWebsites(i, websiteCount).map((w) => idOf(WEBSITE, w)),
        summaries: [],
        groundingMessages: [],
        groundingRanges: [],
      };
      yield conversation;
    }
  } else if (collection === 'messages') {
    for (let i = 0; i < count; i++) {
      for (let m = 0; m < MESSAGES_PER_CONVERSATION; m++) {
        const message: MessageRecord = {
          id: idOf(MESSAGE, i * MESSAGES_PER_CONVERSATION + m),
          created: at,
          updated: at,
          conversation: idOf(CONVERSATION, i),
          role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
          fragment: { string: { raw: text } },
          groundedConversations: [],
        };
        yield message;
      }
    }
  } else if (collection === 'websites') {
    const links: string[][] = Array.from({ length: websiteCount }, () => []);
    for (let i = 0; i < count; i++) for (const w of linkedWebsites(i, websiteCount)) links[w]!.push(idOf(CONVERSATION, i));
    for (let w = 0; w < websiteCount; w++) {
      const website: WebsiteRecord = {
        id: idOf(WEBSITE, w),
        url: `https://example.com/page/${w}`,
        name: `Page ${w}`,
        created: at,
        updated: at,
        conversations: links[w]!,
      };
      yield website;
    }
  }
}

/** Writes the snapshot of `count` conversations a record at a time, as SnapshotFile lays it out. */
async function writeStore(file: string, count: number, text: string): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  const put = async (chunk: string) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await put(`{\n"version": ${JSON_FILE_FORMAT_VERSION},\n"journalSeq": 0`);
  for (const name of COLLECTION_NAMES) {
    await put(`,\n"${name}": [`);
    let written = 0;
    for (const record of recordsOf(name, count, text)) await put(`${written++ === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`);
    await put(written > 0 ? '\n]' : ']');
  }
  await put('\n}\n');
  out.end();
  await finished(out);
}

/** Stops the run if the streamed layout differs in one byte from what the store itself writes. */
async function checkWriter(folder: string): Promise<void> {
  const [streamed, byStore] = [path.join(folder, 'streamed.json'), path.join(folder, 'by-store.json')];
  const count = 3;
  await writeStore(streamed, count, messageText(MESSAGE_CHARS));
  const data: Record<string, unknown> = { version: JSON_FILE_FORMAT_VERSION, journalSeq: 0 };
  for (const name of COLLECTION_NAMES) data[name] = [...recordsOf(name, count, messageText(MESSAGE_CHARS))];
  await new SnapshotFile(byStore).write(data as SnapshotData);
  if (!(await readFile(streamed)).equals(await readFile(byStore)))
    throw new Error(`The streamed snapshot ${streamed} differs from the store's own ${byStore}.`);
  await rm(streamed);
  await rm(byStore);
}

// ---------------------------------------------------------------------------------------------
// Child processes. Each prints one JSON line per result on stdout.

const rssNow = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
const print = (line: object) => console.log(JSON.stringify(line));

/** `open <file>`: opens the store; prints open time, RSS before and after, peak RSS, conversations. */
async function childOpen(file: string): Promise<void> {
  const rssBefore = rssNow();
  const t0 = performance.now();
  const repository = await createJsonFileRepository({ file });
  const openMs = performance.now() - t0;
  const rss = rssNow();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const conversations = await repository.read((view) => view.list('conversations').length);
  await repository.close();
  print({ openMs, rssBefore, rss, peakRss, conversations });
}

/** `whole <file>`: the old reader, the whole file as one string then JSON.parse; prints what happened. */
async function childWhole(file: string): Promise<void> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as { conversations: unknown[] };
    print({ ok: true, conversations: data.conversations.length });
  } catch (error) {
    print({ ok: false, error: `${(error as Error).name}: ${(error as Error).message}` });
  }
}

const journalBytes = async (folder: string) => {
  let total = 0;
  for (const name of await readdir(folder)) if (name.startsWith('db.json.journal-')) total += (await stat(path.join(folder, name))).size;
  return total;
};

/**
 * `append <folder>`: one conversation grows by createMessage up to the last checkpoint, or until
 * APPEND_MS has passed; prints the journal's growth over the WINDOW appends before each checkpoint.
 */
async function childAppend(folder: string): Promise<void> {
  const deadline = performance.now() + APPEND_MS;
  const repository = await createJsonFileRepository({ file: path.join(folder, 'db.json'), compactAfterBytes: 1e12 });
  const service = await createService({ dataDir: folder, repository, summarizer: createFakeSummarizer() });
  const { id } = await service.createConversation({ type: 'COPILOT' });
  const started = performance.now();
  const target = CHECKPOINTS.at(-1)!;
  const measureFrom = async () => ({ bytes: await journalBytes(folder), at: performance.now() });
  let window = await measureFrom();
  // Once the cap has passed: where the last measured window ends (the next checkpoint when its
  // window is under way, else WINDOW appends on), so the length reached still gets a figure.
  let last: number | undefined;
  let n = 0;
  while (n < target && (last === undefined || n < last)) {
    if (last === undefined && performance.now() >= deadline) {
      const next = CHECKPOINTS.find((c) => c > n)!;
      last = next - n <= WINDOW ? next : Math.min(n + WINDOW, target);
      if (last !== next) window = await measureFrom();
    }
    if (last === undefined && CHECKPOINTS.some((c) => c - Math.min(WINDOW, c) === n)) window = await measureFrom();
    n++;
    await service.createMessage({
      role: n % 2 ? 'USER' : 'ASSISTANT',
      fragment: { string: { raw: `message ${n} about the build` } },
      conversation: { id },
    });
    if (CHECKPOINTS.includes(n) || n === last) {
      const appends = Math.min(WINDOW, n);
      const { bytes, at: now } = await measureFrom();
      print({
        messages: n,
        bytesPerAppend: (bytes - window.bytes) / appends,
        msPerAppend: (now - window.at) / appends,
        pastCap: !CHECKPOINTS.includes(n),
      });
    }
  }
  print({
    reached: n,
    seconds: (performance.now() - started) / 1000,
    journalBytes: await journalBytes(folder),
    stopped: last !== undefined && n < target,
  });
  await service.close();
}

// ---------------------------------------------------------------------------------------------
// The parent.

/** Runs this file in a fresh process; answers its JSON lines (also passed to `onLine` as they come), killing it after `timeoutMs`. */
function runChild(
  args: string[],
  timeoutMs: number,
  options: { env?: NodeJS.ProcessEnv; onLine?: (line: Record<string, unknown>) => void } = {},
): Promise<{ lines: Record<string, unknown>[]; timedOut: boolean; code: number | null }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SELF, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: options.env ?? process.env,
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      options.onLine?.(parsed);
    }
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ lines, timedOut, code });
    });
  });
}

/** Bytes free where `folder` lives, as `df` reports them. */
function freeBytes(folder: string): number {
  const output = execFileSync('df', ['-Pk', folder], { encoding: 'utf8', timeout: 10_000 });
  const fields = output.trim().split('\n').at(-1)!.trim().split(/\s+/);
  return Number(fields[3]) * 1024;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fixed = (value: number, digits = 0) => value.toFixed(digits);
const gb = (bytes: number) => `${fixed(bytes / 1e9, 1)} GB`;

async function openTimes(root: string): Promise<void> {
  await checkWriter(root);
  const free = freeBytes(root);
  const text = messageText(MESSAGE_CHARS);
  const stores: { size: number; file: string; bytes: number }[] = [];
  for (const size of SIZES) {
    if (size > 10_000 && free < MIN_FREE_BYTES) {
      console.log(
        `Skipped ${size} conversations: ${gb(free)} free on ${root}, under the ${gb(MIN_FREE_BYTES)} this size needs (BENCH_STORE_MIN_FREE_GB).`,
      );
      continue;
    }
    const folder = path.join(root, `open-${size}`);
    await mkdir(folder, { mode: 0o700 });
    const file = path.join(folder, 'db.json');
    const t0 = performance.now();
    await writeStore(file, size, text);
    const bytes = (await stat(file)).size;
    stores.push({ size, file, bytes });
    console.error(`wrote ${size} conversations: ${fixed(bytes / MB)} MB in ${fixed((performance.now() - t0) / 1000, 1)} s`);
  }
  const runs = new Map<number, Record<string, number>[]>();
  const failures: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const store of stores) {
      const { lines, timedOut, code } = await runChild(['open', store.file], OPEN_TIMEOUT_MS);
      const run = lines[0] as Record<string, number> | undefined;
      if (!run || timedOut) {
        failures.push(`${store.size}: ${timedOut ? `no answer in ${OPEN_TIMEOUT_MS / 1000} s` : `exited with ${code}`}`);
        continue;
      }
      runs.set(store.size, [...(runs.get(store.size) ?? []), run]);
      console.error(
        `  ${store.size}: opened in ${fixed(run.openMs!)} ms, RSS ${fixed(run.rss! / MB)} MB, ${run.conversations} conversations`,
      );
    }
    console.error(`open round ${round + 1} of ${ROUNDS}`);
  }
  const whole = new Map<number, string>();
  for (const store of stores) {
    const { lines, timedOut, code } = await runChild(['whole', store.file], OPEN_TIMEOUT_MS);
    const answer = lines[0];
    whole.set(
      store.size,
      timedOut
        ? `no answer in ${OPEN_TIMEOUT_MS / 1000} s`
        : !answer
          ? `exited with ${code}`
          : answer.ok
            ? 'opens'
            : `fails: ${String(answer.error)}`,
    );
  }

  console.log(
    `\nOpen time and RSS: createJsonFileRepository({ file }) in a fresh process; 20 messages of ${MESSAGE_CHARS} characters per conversation; medians of ${ROUNDS} opens`,
  );
  console.log(
    `(V8's longest string: ${MAX_STRING} characters, ${fixed(MAX_STRING / MB)} MiB. RSS before open is the process with tsx loaded, after a GC; RSS after open also after a GC; peak is the process's maximum.)`,
  );
  console.log(
    '| conversations | snapshot MB | KB per conversation | past the string limit | open ms | RSS before open MB | RSS after open MB | peak RSS MB | conversations opened |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const store of stores) {
    const done = runs.get(store.size) ?? [];
    const of = (key: string) => (done.length ? median(done.map((r) => r[key]!)) : NaN);
    console.log(
      `| ${store.size} | ${fixed(store.bytes / MB)} | ${fixed(store.bytes / store.size / 1024, 1)} | ${store.bytes > MAX_STRING ? 'yes' : 'no'} | ${fixed(of('openMs'))} | ${fixed(of('rssBefore') / MB)} | ${fixed(of('rss') / MB)} | ${fixed(of('peakRss') / MB)} | ${done.length ? `${done.at(-1)!.conversations} (${done.length} of ${ROUNDS} opens)` : 'did not open'} |`,
    );
  }
  console.log('\nThe old reader (readFile(file, "utf8") then JSON.parse) on the same files');
  console.log('| conversations | whole-file string |');
  console.log('|---|---|');
  for (const store of stores) console.log(`| ${store.size} | ${whole.get(store.size)} |`);
  for (const failure of failures) console.log(`Open failed at ${failure}`);
  for (const store of stores) await rm(path.dirname(store.file), { recursive: true, force: true });
}

async function appendCost(root: string): Promise<void> {
  const folder = path.join(root, 'append');
  await mkdir(folder, { mode: 0o700 });
  // A line at n messages holds the conversation's n ids (39 bytes each) plus a few hundred bytes.
  const needed = (n: number) => (39 * n * n) / 2 + 1_000 * n;
  const free = freeBytes(root);
  const fits = CHECKPOINTS.filter((c) => needed(c) + 1e9 < free);
  if (fits.length < CHECKPOINTS.length) {
    console.log(
      `\nAppends stop at ${fits.at(-1) ?? 0} messages: ${gb(free)} free on ${root}, and ${CHECKPOINTS.at(-1)} would write about ${gb(needed(CHECKPOINTS.at(-1)!))}.`,
    );
  }
  if (fits.length === 0) return;
  // The child stops appending at APPEND_MS; a minute past it, it is killed.
  const limitMs = APPEND_MS + 60_000;
  const { lines, timedOut, code } = await runChild(['append', folder], limitMs, {
    env: { ...process.env, BENCH_STORE_MESSAGES: fits.join(',') },
    onLine: (line) =>
      'messages' in line && console.error(`  ${String(line.messages)} messages: ${fixed(line.bytesPerAppend as number)} bytes per append`),
  });

  const points = lines.filter((line) => 'messages' in line) as unknown as {
    messages: number;
    bytesPerAppend: number;
    msPerAppend: number;
    pastCap: boolean;
  }[];
  const end = lines.find((line) => 'reached' in line) as unknown as
    | { reached: number; seconds: number; journalBytes: number; stopped: boolean }
    | undefined;
  console.log(
    `\nBytes written per message append: one conversation, createMessage one at a time (fsync), the journal's growth over the last ${WINDOW} appends / ${WINDOW}`,
  );
  console.log('| messages in the conversation | bytes per append | ms per append |');
  console.log('|---|---|---|');
  for (const point of points)
    console.log(
      `| ${point.messages}${point.pastCap ? ' (where the cap stopped it)' : ''} | ${fixed(point.bytesPerAppend)} | ${fixed(point.msPerAppend, 2)} |`,
    );
  const [first, last] = [points[0], points.at(-1)];
  if (first && last && first !== last)
    console.log(
      `\nRatio, bytes per append at ${last.messages} / at ${first.messages}: ${fixed(last.bytesPerAppend / first.bytesPerAppend, 1)} (near 1: an append costs what changed)`,
    );
  if (end) {
    console.log(
      `Appended ${end.reached} messages in ${fixed(end.seconds, 1)} s; the journal holds ${fixed(end.journalBytes / MB)} MB (${gb(end.journalBytes)})${end.stopped ? `; stopped at the ${APPEND_MS / 1000} s cap (BENCH_STORE_APPEND_SECONDS), after one last window of ${WINDOW} appends` : ''}.`,
    );
  } else {
    console.log(
      `The append process ${timedOut ? `was killed after ${limitMs / 1000} s` : `exited with ${code}`} before it finished; the table shows what was reached.`,
    );
  }
  await rm(folder, { recursive: true, force: true });
}

const [mode, target] = process.argv.slice(2);
if (mode === 'open') await childOpen(target!);
else if (mode === 'whole') await childWhole(target!);
else if (mode === 'append') await childAppend(target!);
else {
  const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-store-'));
  try {
    console.log(
      `bench:store, ${new Date().toISOString()}, Node ${process.version}, temporary folder ${root} (${gb(freeBytes(root))} free)`,
    );
    if (SIZES.length > 0) await openTimes(root);
    else console.log('Open times skipped: BENCH_STORE_SIZES is empty.');
    if (CHECKPOINTS.length > 0) await appendCost(root);
    else console.log('Appends skipped: BENCH_STORE_MESSAGES is empty.');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
