/**
 * `npm run bench:store`: what the JSON-file store costs at the sizes of the issues, for two
 * subjects measured by the same code in the same run: format 4 (the release before, a git worktree
 * of BENCH_STORE_BASELINE_REF) and the new format (this checkout). Every measurement runs in a
 * fresh child process (bench/store-child.ts) that imports the store from its subject's
 * `<root>/src/index.ts` and uses only the service's operations, which both releases share.
 *
 * 0. The stores. Format-4 snapshots of 10,000 and 50,000 conversations of 20 messages each are
 *    written straight to disk (one record per line; the writer is checked byte for byte against
 *    format 4's own snapshot writer first; bench/store-format4.ts). The new subject's store is a
 *    copy, opened and closed once with the new code, which migrates it (not timed with the opens;
 *    its time is printed). A conversation is about 13 KB on disk (messages of about 300
 *    characters), so 50,000 make 0.65 GB, past the longest string V8 allows.
 * 1. Open time and RSS beyond an empty start: `createService({ dataDir })` then one conversation
 *    read (getConversation + listConversationMessages), in a fresh process per open, subjects and
 *    sizes taking turns, minus the same on an empty folder; medians over the rounds. The targets:
 *    RSS beyond empty ≤ 0.5× format 4's db.json at 10,000 conversations, ≤ 0.25× at 50,000. A
 *    separate process also tries the old reader (the whole file as one string, then JSON.parse).
 * 2. Reads in-process: getConversation + listConversationMessages of one conversation over and over
 *    (hot), then spread over every conversation, on the JSON-file store and on
 *    `createMemoryRepository()` of the same checkout filled with the same data through the service.
 * 3. Durable writes: BENCH_STORE_WRITERS (50) concurrent writers, each appending `createMessage` to
 *    its own conversation of the store of 2., fsync as by default, for BENCH_STORE_WRITE_SECONDS.
 * 4. Appends: for each checkpoint c (100 … 20,000 messages, the most a conversation holds), a
 *    conversation created with c - 100 messages grows by 100 `createMessage` calls (durable, as by
 *    default): ms per append, and bytes the process wrote per append (/proc/self/io wchar); the
 *    median of BENCH_STORE_APPEND_REPEATS such conversations.
 *
 * Everything is built in a temporary folder, removed at the end, as is the baseline worktree when
 * this run made it. Each child process is killed if it runs past its time limit.
 *
 * Env: BENCH_STORE_SIZES=10000,50000 (conversations of the open measurements), BENCH_STORE_ROUNDS=3
 * (opens per size and subject), BENCH_STORE_OPTIONS.loadRounds=1 (runs of the reads and the writes per
 * subject, taking turns), BENCH_STORE_MESSAGE_CHARS=300 (characters of each message's text),
 * BENCH_STORE_OPEN_TIMEOUT_SECONDS=300 (per open), BENCH_STORE_MIN_FREE_GB=3 (free disk below which
 * stores past 10,000 conversations are skipped), BENCH_STORE_WORK_SIZE (conversations of the store
 * of the reads and writes; default the smallest of BENCH_STORE_SIZES, else 10,000),
 * BENCH_STORE_READ_SECONDS=3 (each of the hot and the spread reads), BENCH_STORE_WRITE_SECONDS=5,
 * BENCH_STORE_WRITERS=50, BENCH_STORE_MESSAGES=100,1000,10000,20000 (the append checkpoints),
 * BENCH_STORE_APPEND_REPEATS=3, BENCH_STORE_APPEND_SECONDS=180 (checkpoints not started by then
 * are skipped), BENCH_STORE_SKIP
 * (comma-separated parts to leave out: open, read, write, append). An empty BENCH_STORE_SIZES or
 * BENCH_STORE_MESSAGES skips that part.
 * Subjects: BENCH_STORE_BASELINE_REF=5f9d7fd (the format-4 release; its worktree is made in the temp
 * folder as cms-bench-baseline-<commit>, or reused if there), BENCH_STORE_BASELINE_ROOT (use this
 * checkout of format 4 as it is instead), BENCH_STORE_SUBJECT_ROOT (the new subject's checkout;
 * default this one; point it at the baseline to try the script while src/ does not build).
 *
 * Quick run (about a minute): BENCH_STORE_SIZES=1000 BENCH_STORE_MESSAGES=100,1000 npm run bench:store
 */

import { rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkFormat4Writer, conversationId, messageText, writeFormat4Store } from './store-format4.js';
import {
  answer,
  fixed,
  folderBytes,
  freeBytes,
  gb,
  killChildren,
  type Line,
  MB,
  median,
  OPTIONS,
  prepareSubjects,
  ratio,
  runChild,
  type Subject,
  WINDOW,
} from './store-run.js';

/** V8's longest string (2^29 - 24 characters on 64-bit): the old reader's limit. */
const MAX_STRING = (await import('node:buffer')).constants.MAX_STRING_LENGTH;
const RSS_TARGETS: Record<number, number> = { 10000: 0.5, 50000: 0.25 };

/** A built store: format 4's folder, and the new subject's migrated copy. */
interface Store {
  readonly size: number;
  /** Bytes of format 4's db.json. */
  readonly bytes: number;
  readonly dirs: Record<Subject['key'], string>;
}

const num = (line: Line | string, key: string) => (typeof line === 'string' ? NaN : Number(line[key] ?? NaN));
const log = (message: string) => console.error(message);

// ---------------------------------------------------------------------------------------------
// 0. The stores.

async function buildStores(root: string, sizes: number[], subjects: [Subject, Subject]): Promise<Store[]> {
  const [old, next] = subjects;
  const text = messageText(OPTIONS.messageChars);
  await checkFormat4Writer(root, old.root, text);
  const stores: Store[] = [];
  console.log(`\nStores: format 4 written straight to disk; the new subject's a copy opened and closed once by its code (migration)`);
  console.log('| conversations | format-4 db.json MB | written in s | migrated in s (open + close) | new folder MB |');
  console.log('|---|---|---|---|---|');
  for (const size of sizes) {
    const free = freeBytes(root);
    if (size > 10_000 && free < OPTIONS.minFreeBytes) {
      console.log(
        `| ${size} | skipped: ${gb(free)} free on ${root}, under the ${gb(OPTIONS.minFreeBytes)} of BENCH_STORE_MIN_FREE_GB | | | |`,
      );
      continue;
    }
    const f4 = path.join(root, `format4-${size}`);
    const migrated = path.join(root, `new-${size}`);
    await mkdir(f4, { mode: 0o700 });
    const t0 = performance.now();
    await writeFormat4Store(path.join(f4, 'db.json'), size, text);
    const writtenS = (performance.now() - t0) / 1000;
    const bytes = (await stat(path.join(f4, 'db.json'))).size;
    await cp(f4, migrated, { recursive: true });
    const timeout = OPTIONS.openTimeoutMs * 2;
    const result = await runChild(['migrate', '--root', next.root, '--dir', migrated], timeout);
    const done = answer(result, 'migrated', timeout);
    const migration =
      typeof done === 'string'
        ? done
        : `${fixed((num(done, 'openMs') + num(done, 'closeMs')) / 1000, 1)} (${fixed(num(done, 'openMs'))} ms + ${fixed(num(done, 'closeMs'))} ms)`;
    console.log(`| ${size} | ${fixed(bytes / MB)} | ${fixed(writtenS, 1)} | ${migration} | ${fixed((await folderBytes(migrated)) / MB)} |`);
    if (typeof done === 'string') {
      await rm(migrated, { recursive: true, force: true });
      await cp(f4, migrated, { recursive: true });
      console.log(`(The new subject could not open the ${size} store: its figures for it will say why.)`);
    }
    stores.push({ size, bytes, dirs: { old: f4, new: migrated } });
  }
  return stores;
}

// ---------------------------------------------------------------------------------------------
// 1. Open time and RSS.

async function openTimes(root: string, stores: Store[], subjects: [Subject, Subject]): Promise<void> {
  const runs = new Map<string, Line[]>();
  const failures: string[] = [];
  const key = (size: number, subject: Subject) => `${size}/${subject.key}`;
  const openOnce = async (size: number, subject: Subject, dir: string, probe?: string) => {
    const result = await runChild(
      ['open', '--root', subject.root, '--dir', dir, ...(probe ? ['--probe', probe] : [])],
      OPTIONS.openTimeoutMs,
    );
    const run = answer(result, 'openMs', OPTIONS.openTimeoutMs);
    if (typeof run === 'string') return void failures.push(`${subject.label} at ${size}: ${run}`);
    runs.set(key(size, subject), [...(runs.get(key(size, subject)) ?? []), run]);
    if (size > 0)
      log(
        `  ${subject.label} ${size}: opened in ${fixed(num(run, 'openMs'))} ms, RSS ${fixed(num(run, 'rss') / MB)} MB, ${run.messages} messages read`,
      );
  };
  for (let round = 0; round < OPTIONS.rounds; round++) {
    for (const subject of subjects) {
      const empty = await mkdtemp(path.join(root, 'empty-'));
      await openOnce(0, subject, empty);
      await rm(empty, { recursive: true, force: true });
    }
    for (const store of stores)
      for (const subject of subjects)
        await openOnce(store.size, subject, store.dirs[subject.key], conversationId(Math.floor(store.size / 2)));
    log(`open round ${round + 1} of ${OPTIONS.rounds}`);
  }
  const whole = new Map<number, string>();
  for (const store of stores) {
    const result = await runChild(['whole', '--file', path.join(store.dirs.old, 'db.json')], OPTIONS.openTimeoutMs);
    const line = answer(result, 'ok', OPTIONS.openTimeoutMs);
    whole.set(store.size, typeof line === 'string' ? line : line.ok ? 'opens' : `fails: ${String(line.error)}`);
  }

  const of = (size: number, subject: Subject, field: string) => median((runs.get(key(size, subject)) ?? []).map((r) => num(r, field)));
  const beyond = (size: number, subject: Subject, field: string) => of(size, subject, field) - of(0, subject, field);
  console.log(
    `\nOpen time and RSS beyond an empty start: createService({ dataDir }) in a fresh process, then getConversation + listConversationMessages of one conversation; 20 messages of ${OPTIONS.messageChars} characters per conversation; medians of ${OPTIONS.rounds} opens`,
  );
  console.log(
    `(RSS after a GC, once the conversation is read; "beyond empty" subtracts the same figures of an open of an empty folder. V8's longest string: ${fixed(MAX_STRING / MB)} MiB.)`,
  );
  console.log(
    '| conversations | format-4 db.json MB | subject | open ms | open ms beyond empty | first read ms | RSS MB | RSS beyond empty MB | RSS beyond empty / db.json | target | peak RSS MB | opens |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const subject of subjects)
    console.log(
      `| 0 (empty folder) | | ${subject.label} | ${fixed(of(0, subject, 'openMs'))} | | | ${fixed(of(0, subject, 'rss') / MB)} | | | | ${fixed(of(0, subject, 'peakRss') / MB)} | ${runs.get(key(0, subject))?.length ?? 0} |`,
    );
  for (const store of stores) {
    for (const subject of subjects) {
      const rssBeyond = beyond(store.size, subject, 'rss');
      const target = RSS_TARGETS[store.size];
      console.log(
        `| ${store.size} | ${fixed(store.bytes / MB)} | ${subject.label} | ${fixed(of(store.size, subject, 'openMs'))} | ${fixed(beyond(store.size, subject, 'openMs'))} | ${fixed(of(store.size, subject, 'firstReadMs'), 1)} | ${fixed(of(store.size, subject, 'rss') / MB)} | ${fixed(rssBeyond / MB)} | ${fixed(rssBeyond / store.bytes, 2)} | ${target === undefined ? '' : `≤ ${target}${rssBeyond / store.bytes <= target ? ' (met)' : ' (not met)'}`} | ${fixed(of(store.size, subject, 'peakRss') / MB)} | ${runs.get(key(store.size, subject))?.length ?? 0} of ${OPTIONS.rounds} |`,
      );
    }
  }
  const searchable = subjects.filter((subject) =>
    runs.get(key(0, subject))?.some((r) => (r as { searchableMs?: number }).searchableMs !== undefined),
  );
  if (searchable.length > 0) {
    console.log(
      '\nThe search index (this release): read from db.json.search in the background after the open; a first search answers once it is in memory. RSS once it is, beyond the same figure of an empty folder; medians of the same opens',
    );
    console.log(
      '| conversations | subject | open ms | searchable after ms (from the start of the open) | RSS with the index, beyond empty MB | ÷ db.json | the index: RSS with it − RSS before it, MB |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const store of stores) {
      for (const subject of searchable) {
        const withIndex = beyond(store.size, subject, 'rssSearchable');
        console.log(
          `| ${store.size} | ${subject.label} | ${fixed(of(store.size, subject, 'openMs'))} | ${fixed(of(store.size, subject, 'searchableMs'))} | ${fixed(withIndex / MB)} | ${fixed(withIndex / store.bytes, 2)} | ${fixed((of(store.size, subject, 'rssSearchable') - of(store.size, subject, 'rss')) / MB)} |`,
        );
      }
    }
  }
  const [old, next] = subjects;
  for (const store of stores)
    console.log(
      `${store.size} conversations, new / format 4: open beyond empty ${ratio(beyond(store.size, next, 'openMs'), beyond(store.size, old, 'openMs'))}, RSS beyond empty ${ratio(beyond(store.size, next, 'rss'), beyond(store.size, old, 'rss'))}`,
    );
  console.log('\nThe old reader (readFile(file, "utf8") then JSON.parse) on the format-4 files');
  console.log('| conversations | past the string limit | whole-file string |');
  console.log('|---|---|---|');
  for (const store of stores) console.log(`| ${store.size} | ${store.bytes > MAX_STRING ? 'yes' : 'no'} | ${whole.get(store.size)} |`);
  for (const failure of failures) console.log(`Open failed: ${failure}`);
}

// ---------------------------------------------------------------------------------------------
// 2. Reads, and 3. durable concurrent writes, on the work store.

async function readRates(store: Store, subjects: [Subject, Subject]): Promise<void> {
  const timeout = OPTIONS.openTimeoutMs + 2 * OPTIONS.readMs + 120_000;
  const kinds = ['json', 'memory'] as const;
  const runs = new Map<string, Line[]>();
  const failures: string[] = [];
  for (let round = 0; round < OPTIONS.loadRounds; round++) {
    for (const kind of kinds) {
      for (const subject of subjects) {
        const where = kind === 'json' ? ['--dir', store.dirs[subject.key]] : ['--memory'];
        const result = await runChild(['reads', '--root', subject.root, '--count', String(store.size), ...where], timeout);
        const run = answer(result, 'reads', timeout);
        if (typeof run === 'string') {
          failures.push(`${subject.label} ${kind}: ${run}`);
          continue;
        }
        runs.set(`${subject.key}/${kind}`, [...(runs.get(`${subject.key}/${kind}`) ?? []), run]);
        log(
          `  reads, ${subject.label} ${kind}: hot ${fixed(num(run, 'hotOpsPerSecond'))}/s, spread ${fixed(num(run, 'spreadOpsPerSecond'))}/s (ready in ${fixed(num(run, 'readyMs'))} ms)`,
        );
      }
    }
  }
  const of = (subject: Subject, kind: string, field: string) =>
    median((runs.get(`${subject.key}/${kind}`) ?? []).map((r) => num(r, field)));
  console.log(
    `\nReads in-process: getConversation + listConversationMessages (one op), ${store.size} conversations of 20 messages; hot: one conversation over and over, spread: every conversation in turn; ${OPTIONS.readMs / 1000} s each; medians of ${OPTIONS.loadRounds} runs`,
  );
  console.log('| subject | store | hot ops/s | spread ops/s | conversations read in the spread run |');
  console.log('|---|---|---|---|---|');
  for (const subject of subjects)
    for (const kind of kinds)
      console.log(
        `| ${subject.label} | ${kind === 'json' ? 'JSON file' : 'memory (filled through the service)'} | ${fixed(of(subject, kind, 'hotOpsPerSecond'))} | ${fixed(of(subject, kind, 'spreadOpsPerSecond'))} | ${fixed(of(subject, kind, 'spreadDistinct'))} of ${store.size} |`,
      );
  for (const subject of subjects)
    console.log(
      `${subject.label}, JSON file / memory: hot ${ratio(of(subject, 'json', 'hotOpsPerSecond'), of(subject, 'memory', 'hotOpsPerSecond'))}, spread ${ratio(of(subject, 'json', 'spreadOpsPerSecond'), of(subject, 'memory', 'spreadOpsPerSecond'))}`,
    );
  for (const failure of failures) console.log(`Reads failed: ${failure}`);
}

async function writeRates(store: Store, subjects: [Subject, Subject]): Promise<void> {
  const timeout = 2 * OPTIONS.openTimeoutMs + OPTIONS.writeMs + 60_000;
  const runs = new Map<string, Line[]>();
  const failures: string[] = [];
  for (let round = 0; round < OPTIONS.loadRounds; round++) {
    for (const subject of subjects) {
      const result = await runChild(
        ['writes', '--root', subject.root, '--dir', store.dirs[subject.key], '--count', String(store.size)],
        timeout,
      );
      const run = answer(result, 'writes', timeout);
      if (typeof run === 'string') {
        failures.push(`${subject.label}: ${run}`);
        continue;
      }
      runs.set(subject.key, [...(runs.get(subject.key) ?? []), run]);
      if (run.firstError) failures.push(`${subject.label}: ${run.errors} writes failed, the first with ${String(run.firstError)}`);
      log(`  writes, ${subject.label}: ${fixed(num(run, 'opsPerSecond'))}/s, p50 ${fixed(num(run, 'p50'), 2)} ms`);
    }
  }
  const of = (subject: Subject, field: string) => median((runs.get(subject.key) ?? []).map((r) => num(r, field)));
  console.log(
    `\nDurable writes: ${OPTIONS.writers} concurrent writers, each createMessage into its own conversation of the ${store.size}-conversation store (fsync, as by default), ${OPTIONS.writeMs / 1000} s; medians of ${OPTIONS.loadRounds} runs`,
  );
  console.log('| subject | writes/s | p50 ms | p99 ms | close ms |');
  console.log('|---|---|---|---|---|');
  for (const subject of subjects)
    console.log(
      `| ${subject.label} | ${fixed(of(subject, 'opsPerSecond'))} | ${fixed(of(subject, 'p50'), 2)} | ${fixed(of(subject, 'p99'), 2)} | ${fixed(of(subject, 'closeMs'))} |`,
    );
  const [old, next] = subjects;
  console.log(`Writes/s, new / format 4: ${ratio(of(next, 'opsPerSecond'), of(old, 'opsPerSecond'))}`);
  for (const failure of failures) console.log(`Writes failed: ${failure}`);
}

// ---------------------------------------------------------------------------------------------
// 4. Appends.

async function appendCost(root: string, subjects: [Subject, Subject]): Promise<void> {
  const timeout = OPTIONS.appendMs + OPTIONS.openTimeoutMs + 60_000;
  const points = new Map<string, Line>();
  const failures: string[] = [];
  for (const subject of subjects) {
    const folder = path.join(root, `append-${subject.key}`);
    await mkdir(folder, { mode: 0o700 });
    const result = await runChild(['append', '--root', subject.root, '--dir', folder], timeout, {
      onLine: (line) =>
        'msPerAppend' in line &&
        log(`  appends, ${subject.label}, ${String(line.messages)} messages: ${fixed(num(line, 'msPerAppend'), 2)} ms per append`),
    });
    for (const line of result.lines) if ('messages' in line) points.set(`${subject.key}/${String(line.messages)}`, line);
    if (result.timedOut || result.code !== 0)
      failures.push(`${subject.label}: ${result.timedOut ? `killed after ${timeout / 1000} s` : `exited with ${result.code}`}`);
    await rm(folder, { recursive: true, force: true });
  }
  const [old, next] = subjects;
  const cell = (subject: Subject, messages: number, field: string, digits: number) => {
    const line = points.get(`${subject.key}/${messages}`);
    return line === undefined ? '—' : 'error' in line ? String(line.error) : fixed(num(line, field), digits);
  };
  console.log(
    `\nAppends: createMessage (durable, as by default) to one conversation, timed over the last ${WINDOW} appends before it holds the given number of messages (it is created with the rest), median of ${OPTIONS.appendRepeats} conversations; bytes: what the process wrote meanwhile, per append`,
  );
  console.log(
    '| messages in the conversation | format 4 ms per append | new ms per append | new / format 4 | format 4 bytes per append | new bytes per append |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const messages of OPTIONS.checkpoints) {
    const ms = (subject: Subject) => num(points.get(`${subject.key}/${messages}`) ?? '', 'msPerAppend');
    console.log(
      `| ${messages} | ${cell(old, messages, 'msPerAppend', 2)} | ${cell(next, messages, 'msPerAppend', 2)} | ${ratio(ms(next), ms(old))} | ${cell(old, messages, 'bytesPerAppend', 0)} | ${cell(next, messages, 'bytesPerAppend', 0)} |`,
    );
  }
  const [first, last] = [OPTIONS.checkpoints[0]!, OPTIONS.checkpoints.at(-1)!];
  if (first !== last) {
    const growth = (subject: Subject) =>
      ratio(
        num(points.get(`${subject.key}/${last}`) ?? '', 'msPerAppend'),
        num(points.get(`${subject.key}/${first}`) ?? '', 'msPerAppend'),
      );
    console.log(
      `ms per append at ${last} / at ${first} messages: format 4 ${growth(old)}, new ${growth(next)} (near 1: an append costs the same at any length)`,
    );
  }
  for (const failure of failures) console.log(`Appends: ${failure}`);
}

// ---------------------------------------------------------------------------------------------

const skip = (part: string) => OPTIONS.skip.has(part);
console.log(`bench:store, ${new Date().toISOString()}, Node ${process.version}`);
const { subjects, cleanup } = await prepareSubjects();
const root = await mkdtemp(path.join(tmpdir(), 'cms-bench-store-'));
const interrupted = () => {
  killChildren();
  rmSync(root, { recursive: true, force: true });
  cleanup();
  process.exit(130);
};
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);
try {
  console.log(`Temporary folder ${root} (${gb(freeBytes(root))} free)`);
  const openSizes = skip('open') ? [] : OPTIONS.sizes;
  const needsWork = !skip('read') || !skip('write');
  const sizes = [...new Set([...openSizes, ...(needsWork ? [OPTIONS.workSize] : [])])].sort((a, b) => a - b);
  const stores = sizes.length > 0 ? await buildStores(root, sizes, subjects) : [];
  if (openSizes.length > 0)
    await openTimes(
      root,
      stores.filter((store) => openSizes.includes(store.size)),
      subjects,
    );
  else console.log('\nOpen times skipped (BENCH_STORE_SIZES is empty, or BENCH_STORE_SKIP has open).');
  const work = stores.find((store) => store.size === OPTIONS.workSize);
  if (needsWork && !work) console.log(`\nReads and writes skipped: the store of ${OPTIONS.workSize} conversations was not built.`);
  if (work && !skip('read')) await readRates(work, subjects);
  if (work && !skip('write')) await writeRates(work, subjects);
  if (OPTIONS.checkpoints.length > 0 && !skip('append')) await appendCost(root, subjects);
  else console.log('\nAppends skipped (BENCH_STORE_MESSAGES is empty, or BENCH_STORE_SKIP has append).');
} finally {
  await rm(root, { recursive: true, force: true });
  cleanup();
}
