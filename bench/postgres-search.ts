/**
 * Search on PostgreSQL (the store's own, src/stores/postgres/text-search.ts) against the embedded
 * index, the indexes alone (no service, no HTTP: `npm run bench:postgres` measures those, and
 * known-item recall), in one run. `searchLatencyOver(repository)`: CONVERSATIONS (10,000) conversations × 20 messages of about
 *   300 characters (windows of the developer chats' text at random offsets, fixed seed) written
 *   into `repository` and into a memory store in batches of 200 conversations; then QUERIES (300)
 *   queries of 1, 2 and 3 words (words drawn by their frequency in the chats, fixed seed), each
 *   through both stores' `search` (the index alone: `searchConversations` and `searchMessages`,
 *   limit 20, as the service asks), one after the other. Targets: p50 ≤ 10 ms, p95 ≤ 30 ms.
 *
 * `DATABASE_URL=postgres://… npx tsx bench/postgres-search.ts` runs it, in a schema of its own
 * (dropped afterwards; PG_SEARCH_KEEP=1 keeps it, PG_SEARCH_REUSE=<schema>
 * times a kept one again without writing it). Env: PG_SEARCH_CONVERSATIONS, PG_SEARCH_QUERIES.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Repository, TextQuery } from '../src/ports.js';
import { withSearch } from '../src/search/indexed-repository.js';
import { endsInWord, queryWords } from '../src/search/tokens.js';
import { createMemoryRepository } from '../src/stores/memory.js';
import { createPostgresRepository } from '../src/stores/postgres/index.js';
import { conversationRecord } from '../src/testing/records.js';
import { devChats, skippedForData } from './outside-data.js';
import { readDevChats } from './quality/devchats.js';
import { percentile } from './stats.js';
import { seeded } from './texts.js';

const MESSAGES = 20;
const BATCH = 200;
const LIMIT = 20;

/** About `length` characters of `text` from a random offset, cut at whitespace. */
function window(text: string, length: number, random: () => number): string {
  if (text.length <= length) return text;
  let start = Math.floor(random() * (text.length - length));
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  let end = Math.min(text.length, start + length);
  while (end > start + length / 2 && end < text.length && !/\s/.test(text[end]!)) end--;
  return text.slice(start, end).trim();
}

/** Per store: p50 and p95 of each kind of search, in ms. */
export interface LatencyOver {
  readonly conversations: number;
  readonly buildSeconds: { readonly embedded: number; readonly other: number };
  readonly figures: Record<string, { readonly p50: number; readonly p95: number }>;
}

/**
 * Writes `conversations` × 20 messages of about 300 characters into `repository` and into a memory
 * store, then times `queries` searches of 1–3 words through each store's search (the embedded
 * index for the memory store), alternating, and prints p50/p95.
 */
export async function searchLatencyOver(
  repository: Repository,
  label = 'PostgreSQL',
  conversations = 10_000,
  queries = 300,
  file = devChats().file,
  /** `repository` holds these conversations already (a run before wrote them): only the memory store is written. */
  prebuilt = false,
): Promise<LatencyOver> {
  const chats = await readDevChats(file);
  const texts = chats.map((chat) => chat.messages.map((m) => m.text).join('\n\n'));
  const memory = withSearch(createMemoryRepository());
  const other = withSearch(repository);
  const buildSeconds = { embedded: 0, other: 0 };
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const random = seeded(1);
  for (let start = 0; start < conversations; start += BATCH) {
    const batch: { conversation: ReturnType<typeof conversationRecord>; messages: object[] }[] = [];
    for (let i = start; i < Math.min(conversations, start + BATCH); i++) {
      const chat = Math.floor(random() * chats.length);
      const id = `00000001-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      const at = (second: number) => ({ value: new Date(base + i * 600_000 + second * 1000).toISOString() });
      const messages = Array.from({ length: MESSAGES }, (_, m) => ({
        id: `00000002-0000-4000-8000-${(i * MESSAGES + m).toString(16).padStart(12, '0')}`,
        created: at(m),
        updated: at(m),
        conversation: id,
        role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
        fragment: { string: { raw: window(texts[chat]!, 300, random) } },
        groundedConversations: [],
      }));
      const conversation = {
        ...conversationRecord(id, chats[chat]!.title),
        created: at(0),
        updated: at(MESSAGES),
        messages: messages.map((m) => m.id),
      };
      batch.push({ conversation, messages });
    }
    for (const [store, key] of [[memory, 'embedded'], ...(prebuilt ? [] : [[other, 'other']])] as [typeof memory, 'embedded' | 'other'][]) {
      const t0 = performance.now();
      await store.transact((tx) => {
        for (const { conversation, messages } of batch) {
          for (const message of messages) tx.put('messages', message as never);
          tx.put('conversations', conversation);
        }
      });
      buildSeconds[key] += (performance.now() - t0) / 1000;
    }
  }
  // The embedded index is built at the first search: not timed.
  const warm: TextQuery = { text: 'warm', words: queryWords('warm'), prefix: false, limit: LIMIT };
  await memory.search.searchConversations(warm);
  await other.search.searchConversations(warm);

  const bag: string[] = [];
  const stop = new Set(
    'the and for with that this you are from not but can have has was were will would should could its into then than there their them they what when where which who how why all any our out use using used also just like get set see let run now new one two via your about after before each more most other some such only over under been being does did done make made need here'.split(
      ' ',
    ),
  );
  for (const text of texts) for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) if (!stop.has(word)) bag.push(word);
  const pick = seeded(2);
  const asked = Array.from({ length: queries }, (_, i) =>
    Array.from({ length: 1 + (i % 3) }, () => bag[Math.floor(pick() * bag.length)]!).join(' '),
  );
  const times: Record<string, number[]> = {};
  const time = async (names: string[], work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    for (const name of names) (times[name] ??= []).push(performance.now() - t0);
  };
  for (const text of asked) {
    const query: TextQuery = { text, words: queryWords(text), prefix: endsInWord(text), limit: LIMIT };
    const words = `${query.words.length}w`;
    for (const [store, name] of [
      [memory, 'embedded'],
      [other, label],
    ] as const) {
      await time([`${name} conversations`, `${name} conversations, ${words}`], () => store.search.searchConversations(query));
      await time([`${name} messages`, `${name} messages, ${words}`], () => store.search.searchMessages(query));
    }
  }
  await memory.close();
  const figures = Object.fromEntries(
    Object.entries(times).map(([name, ms]) => [name, { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95) }]),
  );
  console.log(
    `\nSearch latency: ${conversations} conversations × ${MESSAGES} messages (~300 characters, developer chats' text), ${queries} queries of 1–3 words (by frequency), limit ${LIMIT}, the store's search alone, in-process; written in ${buildSeconds.other.toFixed(1)} s (${label}) and ${buildSeconds.embedded.toFixed(1)} s (memory). Targets p50 ≤ 10 ms, p95 ≤ 30 ms.`,
  );
  console.log('| search | p50 ms | p95 ms |');
  console.log('|---|---|---|');
  for (const [name, { p50, p95 }] of Object.entries(figures).sort()) console.log(`| ${name} | ${p50.toFixed(2)} | ${p95.toFixed(2)} |`);
  return { conversations, buildSeconds, figures };
}

/** Runs it against `DATABASE_URL`, in a schema dropped afterwards. */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('Set DATABASE_URL to a PostgreSQL database this benchmark may make schemas in.');
  const data = devChats();
  const skipped = skippedForData('search on PostgreSQL', data);
  if (skipped) {
    console.error(skipped);
    return;
  }
  const admin = new pg.Pool({ connectionString: url });
  const reuse = process.env.PG_SEARCH_REUSE;
  const schema = reuse ?? `bench_search_${process.pid}`;
  try {
    const repository = await createPostgresRepository({ connectionString: url }, { schema });
    try {
      await searchLatencyOver(
        repository,
        'PostgreSQL',
        Number(process.env.PG_SEARCH_CONVERSATIONS ?? 10_000),
        Number(process.env.PG_SEARCH_QUERIES ?? 300),
        data.file,
        reuse !== undefined,
      );
    } finally {
      await repository.close();
    }
  } finally {
    if (!process.env.PG_SEARCH_KEEP && !reuse) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
