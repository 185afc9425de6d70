/**
 * Known-item search on the developer chats (`../shared/data/devchats/dev.jsonl` beside the
 * repository, or $SEARCH_DEVCHATS, read by path: bench/outside-data.ts; see bench/quality/devchats.ts): does searching a chat's own title (the title the assistant tool gave
 * it, which the store never sees) find that chat? Every chat is loaded into an in-memory service
 * (`createService()`, the embedded summarizer) as a conversation of its messages, without its
 * title. Two runs, each on a fresh service: (a) the conversations' names empty; (b) each
 * conversation renamed first with `renameConversation` (the embedded summarizer writes a title).
 * For each chat, `searchConversations` with the chat's title as the query (limit 10,
 * transferables false): recall@1, recall@3 and MRR (over the top 10) of the chat's own
 * conversation. Beside it, in the same run, a plain BM25 written here (k1 1.2, b 0.75, lowercase
 * \w+ tokens, no stop words or stems; each conversation's messages concatenated as one document,
 * so it sees no name in either run) over the same messages.
 * Target: recall@3 ≥ 0.85 for the service's search.
 *
 * `npx tsx bench/search-quality.ts [chats.jsonl]` runs it alone; bench/search.ts runs it last.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createService, type Service } from '../src/index.js';
import { devChats, skippedForData } from './outside-data.js';
import { type DevChat, readDevChats } from './quality/devchats.js';
import { loadSqlite, sqliteMissing } from './sqlite-addon.js';
import { loadPeer, openPeer, peerQueries } from './sqlite-peer.js';
import { mean, percentile } from './stats.js';
import { recordTarget } from './targets.js';

export const TOP = 10;
export const RECALL_3_TARGET = 0.85;

// ---------------------------------------------------------------------------------------------
// Plain BM25, the baseline.

const K1 = 1.2;
const B = 0.75;
const tokens = (text: string): string[] => text.toLowerCase().match(/\w+/g) ?? [];

/** BM25 over whole documents; `rank` answers the documents' indexes, best first (ties: lower index first). */
export class Bm25 {
  readonly #frequencies: Map<string, number>[];
  readonly #lengths: number[];
  readonly #documentFrequency = new Map<string, number>();
  readonly #averageLength: number;

  constructor(documents: readonly string[]) {
    this.#frequencies = documents.map((document) => {
      const frequencies = new Map<string, number>();
      for (const token of tokens(document)) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      for (const token of frequencies.keys()) this.#documentFrequency.set(token, (this.#documentFrequency.get(token) ?? 0) + 1);
      return frequencies;
    });
    this.#lengths = documents.map((document) => tokens(document).length);
    this.#averageLength = mean(this.#lengths) || 1;
  }

  rank(query: string): number[] {
    const n = this.#frequencies.length;
    const terms = [...new Set(tokens(query))];
    const scores = this.#frequencies.map((frequencies, doc) => {
      let score = 0;
      for (const term of terms) {
        const tf = frequencies.get(term);
        if (!tf) continue;
        const df = this.#documentFrequency.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.#lengths[doc]!) / this.#averageLength));
      }
      return score;
    });
    return scores
      .map((score, doc) => ({ score, doc }))
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .map((s) => s.doc);
  }
}

// ---------------------------------------------------------------------------------------------

/** Ranks (1-based) of each chat's own conversation in its search; undefined when not in the top 10. */
export interface Figures {
  readonly recall1: number;
  readonly recall3: number;
  readonly recall10: number;
  readonly mrr: number;
}
function figures(ranks: readonly (number | undefined)[]): Figures {
  const share = (k: number) => ranks.filter((r) => r !== undefined && r <= k).length / ranks.length;
  return {
    recall1: share(1),
    recall3: share(3),
    recall10: share(TOP),
    mrr: mean(ranks.map((r) => (r === undefined || r > TOP ? 0 : 1 / r))),
  };
}

export interface RunResult {
  readonly label: string;
  readonly ours: Figures;
  readonly bm25: Figures;
  /** SQLite FTS5's (bench/sqlite-peer.ts), when better-sqlite3 loads. */
  readonly fts?: Figures;
  readonly searchP50: number;
  readonly searchP95: number;
  readonly renameP50?: number;
}

/**
 * One run over a fresh service from `open` (default: in memory, with the embedded index), closed
 * at the end: every chat stored, renamed first when `rename`, then searched by its title.
 */
export async function knownItemRun(
  chats: readonly DevChat[],
  rename: boolean,
  open: () => Promise<Service> = () => createService(),
): Promise<RunResult> {
  const service = await open();
  try {
    const ids: string[] = [];
    for (const chat of chats) {
      const conversation = await service.createConversation({
        type: 'COPILOT',
        messages: chat.messages.map((m) => ({ role: m.role, fragment: { string: { raw: m.text } } })),
      });
      ids.push(conversation.id);
    }
    const renameMs: number[] = [];
    if (rename) {
      for (const id of ids) {
        const t0 = performance.now();
        await service.renameConversation(id, { transferables: false });
        renameMs.push(performance.now() - t0);
      }
    }
    const searchMs: number[] = [];
    const ours: (number | undefined)[] = [];
    for (const [i, chat] of chats.entries()) {
      const t0 = performance.now();
      const found = await service.searchConversations(
        { engines: { iterable: [{ query: chat.title }] } },
        { limit: TOP, transferables: false },
      );
      searchMs.push(performance.now() - t0);
      const at = found.iterable.findIndex((hit) => hit.identifier === ids[i]);
      ours.push(at === -1 ? undefined : at + 1);
    }
    const bm25 = new Bm25(chats.map((chat) => chat.messages.map((m) => m.text).join('\n')));
    const baseline = chats.map((chat, i) => {
      const at = bm25.rank(chat.title).indexOf(i);
      return at === -1 ? undefined : at + 1;
    });
    const fts = ftsRanks(chats);
    return {
      ...(fts ? { fts: figures(fts) } : {}),
      label: rename ? '(b) renamed first (renameConversation: the embedded summarizer names each)' : '(a) names empty',
      ours: figures(ours),
      bm25: figures(baseline),
      searchP50: percentile(searchMs, 0.5),
      searchP95: percentile(searchMs, 0.95),
      ...(rename ? { renameP50: percentile(renameMs, 0.5) } : {}),
    };
  } finally {
    await service.close();
  }
}

/**
 * Each chat's rank in SQLite FTS5's search for its title (an in-memory database of the SQLite
 * peer's schema, the chats' messages without names, the title's words OR'ed, bm25, a
 * conversation scored by the sum of its messages'); undefined when better-sqlite3 does not load.
 */
function ftsRanks(chats: readonly DevChat[]): (number | undefined)[] | undefined {
  const loaded = loadSqlite();
  if ('error' in loaded) return undefined;
  const db = openPeer(loaded.Database, ':memory:');
  try {
    loadPeer(
      db,
      chats.map((chat, i) => ({
        id: `chat-${i}`,
        name: '',
        fields: { id: `chat-${i}` },
        messages: chat.messages.map((m, j) => ({ fields: { id: `chat-${i}-${j}` }, text: m.text })),
      })),
    );
    const peer = peerQueries(db);
    return chats.map((chat, i) => {
      const at = peer.searchConversations(chat.title, TOP).iterable.findIndex((hit) => hit.identifier === `chat-${i}`);
      return at === -1 ? undefined : at + 1;
    });
  } finally {
    db.close();
  }
}

/** Runs both runs on the chats in `file` and prints their table. */
export async function searchQuality(file = devChats().file): Promise<void> {
  const chats = await readDevChats(file);
  // FTS5 beside them when better-sqlite3 loads (built on demand), unless BENCH_SKIP=sqlite.
  const ftsMissing = (process.env.BENCH_SKIP ?? '').split(',').includes('sqlite') ? 'left out (BENCH_SKIP=sqlite)' : await sqliteMissing();
  const results = [await knownItemRun(chats, false), await knownItemRun(chats, true)];
  const f = (x: number) => x.toFixed(3);
  console.log(
    `\nKnown-item search: each of the ${chats.length} developer chats (${path.basename(file)}) stored without its title in an in-memory service, then found by its title; searchConversations(limit ${TOP}, transferables false) against a plain BM25 (k1 ${K1}, b ${B}, lowercase \\w+ tokens, each conversation's messages as one document) over the same texts, same run`,
  );
  console.log(`| run | search | recall@1 | recall@3 | recall@${TOP} | MRR@${TOP} | target recall@3 ≥ ${RECALL_3_TARGET} |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    const met = r.ours.recall3 >= RECALL_3_TARGET ? 'met' : 'not met';
    console.log(`| ${r.label} | ours | ${f(r.ours.recall1)} | ${f(r.ours.recall3)} | ${f(r.ours.recall10)} | ${f(r.ours.mrr)} | ${met} |`);
    console.log(`| | plain BM25 | ${f(r.bm25.recall1)} | ${f(r.bm25.recall3)} | ${f(r.bm25.recall10)} | ${f(r.bm25.mrr)} | |`);
    if (r.fts && !ftsMissing)
      console.log(
        `| | SQLite FTS5 (porter, words OR'ed, bm25) | ${f(r.fts.recall1)} | ${f(r.fts.recall3)} | ${f(r.fts.recall10)} | ${f(r.fts.mrr)} | |`,
      );
  }
  if (ftsMissing) console.log(`SQLite FTS5: ${ftsMissing}`);
  const first = results[0]!;
  if (first.fts && !ftsMissing)
    recordTarget({
      order: 52,
      target: `known-item recall@3, ${chats.length} developer chats found by their titles (names empty)`,
      ours: f(first.ours.recall3),
      against: `SQLite FTS5 ${f(first.fts.recall3)} (plain BM25 ${f(first.bm25.recall3)})`,
      ratio: first.fts.recall3 === 0 ? '—' : `×${(first.ours.recall3 / first.fts.recall3).toFixed(2)}`,
      goal: 'above FTS5',
      met: first.ours.recall3 > first.fts.recall3,
    });
  for (const r of results) {
    const ratio = (a: number, b: number) => (b === 0 ? '—' : `×${(a / b).toFixed(2)}`);
    console.log(
      `${r.label}: ours / BM25 recall@3 ${ratio(r.ours.recall3, r.bm25.recall3)}, MRR ${ratio(r.ours.mrr, r.bm25.mrr)}; search p50 ${r.searchP50.toFixed(2)} ms, p95 ${r.searchP95.toFixed(2)} ms${r.renameP50 === undefined ? '' : `; rename p50 ${r.renameP50.toFixed(1)} ms`}`,
    );
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const data = devChats(process.argv[2] ? { SEARCH_DEVCHATS: process.argv[2] } : process.env);
  const skipped = skippedForData('known-item search', data);
  if (skipped) console.error(skipped);
  else await searchQuality(data.file);
}
