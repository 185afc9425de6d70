import { readSkippingDamaged, type SkippedRecord } from '../damaged-records.js';
import type { ConversationHit, TextHit, TextQuery, TextSearch, TimeRange } from '../ports.js';
import type { AnnotationRecord, MessageRecord } from '../records.js';
import { conversationSnapshot, renderAnnotation, renderConversationOutline, renderMessage } from '../render/conversation.js';
import { type SearchEngineInput, type SearchEnginesInput, searchInputSchema } from '../schemas/search.js';
import { SearchBudget, type SearchBudgetLimits } from '../search/search-budget.js';
import { endsInWord, MAX_QUERY_WORDS, queryWords } from '../search/tokens.js';
import type { VectorHit, VectorIndex } from '../search/vector-index.js';
import { Slices } from '../slices.js';
import { parseInput } from '../validate.js';
import type {
  SearchedAnnotation,
  SearchedAnnotations,
  SearchedConversation,
  SearchedConversationMessage,
  SearchedConversationMessages,
  SearchedConversations,
} from '../wire.js';
import { type ListOptions, mustGet, type OperationContext, pageOptions, parseId } from './context.js';

/** Results a search answers when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** Hits each engine contributes before engines are combined, or filtered, and pages cut. */
const CANDIDATES = 1000;
/** Characters of a snippet. */
const SNIPPET_CHARS = 160;

/** A record found, while engines are combined. */
interface Found {
  readonly id: string;
  readonly similarity: number;
  readonly temporal: boolean;
  /** For a conversation: its matching messages and annotations. */
  readonly conversation?: ConversationHit;
}

type Scope = { kind: 'messages'; conversation?: string } | { kind: 'conversations' } | { kind: 'annotations' };

/** What a search needs besides its input: the index, and where to say that an engine fell back. */
export interface SearchContext {
  readonly search: TextSearch;
  readonly ctx: OperationContext;
  /** Vectors of meaning, for `embeddings` engines, when the service has an embedder. */
  readonly vectors?: VectorIndex;
  /** The most work one request may do (`SEARCH_BUDGET` unless the service was given others). */
  readonly budget?: SearchBudgetLimits;
  /** Set once the log has said that `embeddings` engines run as full text: it says so once. */
  saidFullText?: boolean;
}

/** Messages of every conversation that match the input, best first, a page at a time. */
export async function searchMessages(sc: SearchContext, input: unknown, options?: ListOptions): Promise<SearchedConversationMessages> {
  return searchMessagesIn(sc, { kind: 'messages' }, input, options);
}

/** Messages of one conversation that match; NOT_FOUND for an unknown conversation. */
export async function searchConversationMessages(
  sc: SearchContext,
  conversationId: string,
  input: unknown,
  options?: ListOptions,
): Promise<SearchedConversationMessages> {
  const conversation = parseId(conversationId, 'conversation id');
  await sc.ctx.repository.read((view) => mustGet(view, 'conversations', conversation, 'conversation'));
  return searchMessagesIn(sc, { kind: 'messages', conversation }, input, options);
}

async function searchMessagesIn(
  sc: SearchContext,
  scope: Scope,
  input: unknown,
  options?: ListOptions,
): Promise<SearchedConversationMessages> {
  const page = pageOptions({ ...options, limit: options?.limit ?? DEFAULT_SEARCH_LIMIT });
  const parsed = parseInput(searchInputSchema, input, 'SearchInput');
  const plan = new Plan(sc, scope, page.offset + page.limit);
  const found = await plan.run(parsed.engines, 0);
  const slice = found.slice(page.offset, page.offset + page.limit);
  const records = await sc.ctx.repository.read((view) =>
    readSkippingDamaged(
      view,
      'messages',
      slice.map((hit) => hit.id),
      plan.skipped,
    ),
  );
  plan.budget.spend(
    'recordChars',
    sumOf(records, (record) => messageText(record).length),
  );
  const matcher = new QueryMatcher(plan.queries);
  const slices = plan.slices;
  const iterable: SearchedConversationMessage[] = [];
  for (const [i, hit] of slice.entries()) {
    if (slices.due) await slices.next();
    const record = records[i];
    if (!record) continue;
    iterable.push(searchedMessage(hit, record, matcher, page.transferables));
  }
  return withNext(plan.withSkipped({ iterable }), found.length, page.offset + page.limit);
}

/** Conversations that match by their messages, names and annotations, best first, a page at a time. */
export async function searchConversations(sc: SearchContext, input: unknown, options?: ListOptions): Promise<SearchedConversations> {
  const page = pageOptions({ ...options, limit: options?.limit ?? DEFAULT_SEARCH_LIMIT });
  const parsed = parseInput(searchInputSchema, input, 'SearchInput');
  const plan = new Plan(sc, { kind: 'conversations' }, page.offset + page.limit);
  const found = await plan.run(parsed.engines, 0);
  const slice = found.slice(page.offset, page.offset + page.limit);
  const read = await sc.ctx.repository.read(async (view) => {
    // Read together: a store over a network answers the three at once.
    const [conversations, messages, annotations] = await Promise.all([
      view.getMany(
        'conversations',
        slice.map((hit) => hit.id),
      ),
      readSkippingDamaged(
        view,
        'messages',
        slice.flatMap((hit) => hit.conversation?.messages.map((m) => m.id) ?? []),
        plan.skipped,
      ),
      view.getMany(
        'annotations',
        slice.flatMap((hit) => hit.conversation?.annotations.map((a) => a.id) ?? []),
      ),
    ]);
    // The conversations with their annotations, their messages by id alone (not read).
    const snapshots = page.transferables
      ? await Promise.all(conversations.map((record) => record && conversationSnapshot(view, record, [])))
      : [];
    return { conversations, messages, annotations, snapshots };
  });
  plan.budget.spend(
    'recordChars',
    sumOf(read.conversations, (record) => record?.name?.length ?? 0) +
      sumOf(read.messages, (record) => messageText(record).length) +
      sumOf(read.annotations, (record) => record?.text.length ?? 0) +
      sumOf(read.snapshots, outlineChars),
  );
  const messages = new Map(read.messages.filter((m) => m !== undefined).map((m) => [m.id, m]));
  const annotations = new Map(read.annotations.filter((a) => a !== undefined).map((a) => [a.id, a]));
  const matcher = new QueryMatcher(plan.queries);
  const slices = plan.slices;
  const iterable: SearchedConversation[] = [];
  for (const [i, hit] of slice.entries()) {
    if (slices.due) await slices.next();
    const record = read.conversations[i];
    if (!record) continue;
    const messageHits = (hit.conversation?.messages ?? []).flatMap((m) => {
      const message = messages.get(m.id);
      return message ? [searchedMessage({ ...m, temporal: hit.temporal }, message, matcher, page.transferables)] : [];
    });
    const annotationHits = (hit.conversation?.annotations ?? []).flatMap((a) => {
      const annotation = annotations.get(a.id);
      return annotation ? [searchedAnnotation(a, annotation, matcher, page.transferables)] : [];
    });
    const exact = matcher.holds(record.name ?? '') || messageHits.some((m) => m.exact) || annotationHits.some((a) => a.exact);
    const searched: SearchedConversation = { exact, similarity: round(hit.similarity), identifier: record.id };
    if (hit.temporal) searched.temporal = true;
    const snapshot = read.snapshots[i];
    if (snapshot) searched.conversation = renderConversationOutline(snapshot);
    if (messageHits.length > 0) searched.messages = { iterable: messageHits };
    if (annotationHits.length > 0) searched.annotations = { iterable: annotationHits };
    iterable.push(searched);
  }
  return withNext(plan.withSkipped({ iterable }), found.length, page.offset + page.limit);
}

/**
 * Annotations that match the input, best first, a page at a time: their text alone is searched
 * (scored as messages are). `embeddings` engines run as full text here: the vectors of meaning
 * hold messages and conversations, not annotations.
 */
export async function searchAnnotations(sc: SearchContext, input: unknown, options?: ListOptions): Promise<SearchedAnnotations> {
  const page = pageOptions({ ...options, limit: options?.limit ?? DEFAULT_SEARCH_LIMIT });
  const parsed = parseInput(searchInputSchema, input, 'SearchInput');
  const plan = new Plan(sc, { kind: 'annotations' }, page.offset + page.limit);
  const found = await plan.run(parsed.engines, 0);
  const slice = found.slice(page.offset, page.offset + page.limit);
  const records = await sc.ctx.repository.read((view) =>
    view.getMany(
      'annotations',
      slice.map((hit) => hit.id),
    ),
  );
  plan.budget.spend(
    'recordChars',
    sumOf(records, (record) => record?.text.length ?? 0),
  );
  const matcher = new QueryMatcher(plan.queries);
  const iterable: SearchedAnnotation[] = [];
  for (const [i, hit] of slice.entries()) {
    if (plan.slices.due) await plan.slices.next();
    const record = records[i];
    if (!record) continue;
    const searched = searchedAnnotation(hit, record, matcher, page.transferables);
    if (hit.temporal) searched.temporal = true;
    iterable.push(searched);
  }
  return withNext({ iterable }, found.length, page.offset + page.limit);
}

/**
 * The annotations a text query finds: the index's own search of them, or for an index without
 * one, the best annotations of each conversation it finds (see `TextSearch.searchAnnotations`).
 */
async function annotationHits(search: TextSearch, query: TextQuery): Promise<TextHit[]> {
  if (search.searchAnnotations) return search.searchAnnotations(query);
  const conversations = await search.searchConversations(query);
  return conversations
    .flatMap((hit) => hit.annotations)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, query.limit);
}

function withNext<T extends object>(answer: T, total: number, end: number): T & { next?: number } {
  return end < total ? { ...answer, next: end } : answer;
}

/**
 * One search: runs its engines against the index, AND or OR, nested as `operations` say, and
 * keeps the queries it ran (to find them verbatim and cut snippets around them).
 */
class Plan {
  readonly queries: string[] = [];
  /** Records left out because they are damaged on disk: the answer names them. */
  readonly skipped: SkippedRecord[] = [];
  /** The work the whole request may do, its engines' and its answer's. */
  readonly budget: SearchBudget;
  /** The request's clock: its engines and its answer's records give other requests a turn every slice. */
  readonly slices = new Slices();

  /** How many hits an engine asks the index for: the page and one more when nothing combines or filters them; else {@link CANDIDATES}. */
  #candidates = CANDIDATES;

  constructor(
    readonly sc: SearchContext,
    readonly scope: Scope,
    /** Where the page asked for ends: with one engine alone, the index need find no more (and one to say there is a next page). */
    readonly pageEnd: number,
  ) {
    this.budget = new SearchBudget(sc.budget);
  }

  /** The answer, with `skipped` when damaged records were left out. */
  withSkipped<T extends object>(answer: T): T & { skipped?: SkippedRecord[] } {
    return this.skipped.length > 0 ? { ...answer, skipped: this.skipped } : answer;
  }

  /** The records the engines find together, best first. */
  async run(engines: SearchEnginesInput, depth: number): Promise<Found[]> {
    if (depth === 0) await this.#refuseIfTooCostly(engines);
    const alone = engines.iterable.length === 1 ? engines.iterable[0]! : undefined;
    if (depth === 0 && alone && !alone.operations && !alone.embeddings && !alone.full_text?.exact && alone.full_text?.similarity == null) {
      this.#candidates = Math.min(CANDIDATES, this.pageEnd + 1);
    }
    const results: Found[][] = [];
    for (const engine of engines.iterable) {
      if (this.slices.due) await this.slices.next();
      results.push(await this.#engine(engine, depth));
    }
    return engines.type === 'AND' ? intersect(results, this.slices) : union(results, this.slices);
  }

  /**
   * Refuses the request before any engine runs when the postings its engines' own words hold (a
   * lower bound of what they walk) are already over the budget: the engines would otherwise walk
   * most of the budget before the one that goes past it is refused. One engine alone counts its
   * postings against the budget itself before it walks them: asking the index first would be the
   * same look-up twice (on PostgreSQL, a round trip more before every search).
   */
  async #refuseIfTooCostly(engines: SearchEnginesInput): Promise<void> {
    const { search } = this.sc;
    if (!search.postings) return;
    if (engines.iterable.length === 1 && !engines.iterable[0]!.operations) return;
    let postings = 0;
    const add = async (list: SearchEnginesInput) => {
      for (const engine of list.iterable) {
        const words = queryWords(engine.query?.trim() ?? '');
        if (words.length > 0) postings += await search.postings!(words);
        if (engine.operations) await add(engine.operations);
      }
    };
    await add(engines);
    this.budget.check('postings', postings);
  }

  async #engine(engine: SearchEngineInput, depth: number): Promise<Found[]> {
    const query = engine.query?.trim() ?? '';
    const byMeaning =
      engine.embeddings && query !== '' && this.scope.kind !== 'annotations' ? await this.#byMeaning(query, engine) : undefined;
    const temporal = engine.temporal !== undefined;
    const textQuery: TextQuery = {
      text: query,
      words: queryWords(query),
      // A query that ends in a space or punctuation takes its last word whole.
      prefix: endsInWord(engine.query ?? ''),
      limit: this.#candidates,
      budget: this.budget,
      slices: this.slices,
      ...timeRanges(engine),
      ...(this.scope.kind === 'messages' && this.scope.conversation !== undefined ? { conversation: this.scope.conversation } : {}),
    };
    if (query !== '') this.queries.push(query);
    let found: Found[] | undefined;
    // Words that are all stop words (or punctuation) find nothing rather than everything.
    if (query === '' ? temporal || !engine.operations : textQuery.words.length > 0) {
      found =
        this.scope.kind === 'conversations'
          ? (await this.sc.search.searchConversations(textQuery)).map((hit) => ({
              id: hit.id,
              similarity: hit.similarity,
              temporal,
              conversation: hit,
            }))
          : (this.scope.kind === 'annotations'
              ? await annotationHits(this.sc.search, textQuery)
              : await this.sc.search.searchMessages(textQuery)
            ).map((hit) => ({ id: hit.id, similarity: hit.similarity, temporal }));
    } else if (query !== '') found = [];
    // By meaning too: what the words found, and what the vectors found, each at its best similarity.
    if (byMeaning) found = await union([found ?? [], byMeaning], this.slices);
    if (engine.operations) {
      const nested = await this.run(engine.operations, depth + 1);
      found = found === undefined ? nested : await intersect([found, nested], this.slices);
    }
    found ??= [];
    const least = engine.full_text?.similarity ?? engine.embeddings?.similarity;
    // Compared as answered (rounded), so a similarity read from one answer keeps that hit in the next.
    if (least !== undefined && least !== null) found = found.filter((hit) => round(hit.similarity) >= least);
    if (engine.full_text?.exact && query !== '') found = await this.#verbatim(found, query);
    return found;
  }

  /**
   * What the vectors find for `query`, within the engine's times; undefined (and the engine runs as
   * full text, which the log says once) without an embedder or when it fails.
   */
  async #byMeaning(query: string, engine: SearchEngineInput): Promise<Found[] | undefined> {
    const { vectors, ctx } = this.sc;
    // Comparing the query with every vector is work as walking postings is: counted with them.
    if (vectors) this.budget.spend('postings', vectors.searchCost);
    const hits = vectors
      ? await vectors.search(query, {
          limit: CANDIDATES,
          scope: this.scope.kind === 'conversations' ? 'conversations' : 'messages',
          slices: this.slices,
          ...(this.scope.kind === 'messages' && this.scope.conversation !== undefined ? { conversation: this.scope.conversation } : {}),
        })
      : undefined;
    if (!hits) {
      if (!this.sc.saidFullText) {
        this.sc.saidFullText = true;
        ctx.logger.warn(
          vectors
            ? `An \`embeddings\` search engine ran as full text: the embedder (${vectors.model}) could not embed the query.`
            : 'An `embeddings` search engine ran as full text: no embedder is configured (ServiceOptions.embedder).',
        );
      }
      return undefined;
    }
    const temporal = engine.temporal !== undefined;
    // Records of no likeness at all (orthogonal or opposed vectors) are not results.
    const alike = hits.filter((hit) => hit.similarity > 0);
    const kept = temporal ? await this.#inTime(alike, engine) : alike;
    return kept.map((hit) => ({
      id: hit.id,
      similarity: hit.similarity,
      temporal,
      ...(this.scope.kind === 'conversations'
        ? { conversation: { id: hit.id, similarity: hit.similarity, messages: [], annotations: [] } }
        : {}),
    }));
  }

  /** The vector hits whose records were created and updated within the engine's ranges (the vectors know no times). */
  async #inTime(hits: readonly VectorHit[], engine: SearchEngineInput): Promise<VectorHit[]> {
    const { created, updated } = timeRanges(engine);
    const collection = this.scope.kind === 'conversations' ? 'conversations' : 'messages';
    const records = await this.sc.ctx.repository.read((view) =>
      readSkippingDamaged(
        view,
        collection,
        hits.map((hit) => hit.id),
        this.skipped,
      ),
    );
    const within = (stamp: { value: string } | undefined, range: TimeRange | undefined) => {
      if (!range) return true;
      const at = stamp ? Date.parse(stamp.value) : 0;
      return (range.from === undefined || at >= range.from) && (range.to === undefined || at <= range.to);
    };
    return hits.filter((_, i) => {
      const record = records[i];
      return record !== undefined && within(record.created, created) && within(record.updated, updated);
    });
  }

  /** The hits whose text holds `query` verbatim (letter case and spacing aside). */
  async #verbatim(found: Found[], query: string): Promise<Found[]> {
    const ids = found.map((hit) => hit.id);
    const matcher = new QueryMatcher([query]);
    const slices = this.slices;
    if (this.scope.kind === 'annotations') {
      const records = await this.sc.ctx.repository.read((view) => view.getMany('annotations', ids));
      this.budget.spend(
        'recordChars',
        sumOf(records, (record) => record?.text.length ?? 0),
      );
      return found.filter((_, i) => matcher.holds(records[i]?.text ?? ''));
    }
    if (this.scope.kind === 'messages') {
      const records = await this.sc.ctx.repository.read((view) => readSkippingDamaged(view, 'messages', ids, this.skipped));
      this.budget.spend(
        'recordChars',
        sumOf(records, (record) => messageText(record).length),
      );
      const kept: Found[] = [];
      for (const [i, hit] of found.entries()) {
        if (slices.due) await slices.next();
        if (matcher.holds(messageText(records[i]))) kept.push(hit);
      }
      return kept;
    }
    const kept: Found[] = [];
    const texts = await this.sc.ctx.repository.read(async (view) => {
      const names = await view.getMany('conversations', ids);
      const messages = await readSkippingDamaged(
        view,
        'messages',
        found.flatMap((hit) => hit.conversation?.messages.map((m) => m.id) ?? []),
        this.skipped,
      );
      const annotations = await view.getMany(
        'annotations',
        found.flatMap((hit) => hit.conversation?.annotations.map((a) => a.id) ?? []),
      );
      return { names, messages: messages.map(messageText), annotations: annotations.map((a) => a?.text ?? '') };
    });
    const length = (text: string) => text.length;
    this.budget.spend(
      'recordChars',
      sumOf(texts.names, (record) => record?.name?.length ?? 0) + sumOf(texts.messages, length) + sumOf(texts.annotations, length),
    );
    let m = 0;
    let a = 0;
    for (const [i, hit] of found.entries()) {
      if (slices.due) await slices.next();
      const own = [texts.names[i]?.name ?? ''];
      for (const _ of hit.conversation?.messages ?? []) own.push(texts.messages[m++]!);
      for (const _ of hit.conversation?.annotations ?? []) own.push(texts.annotations[a++]!);
      if (own.some((text) => matcher.holds(text))) kept.push(hit);
    }
    return kept;
  }
}

function timeRanges(engine: SearchEngineInput): { created?: TimeRange; updated?: TimeRange } {
  const range = (r: { from?: { value: string }; to?: { value: string } } | undefined): TimeRange | undefined =>
    r && {
      ...(r.from ? { from: Date.parse(r.from.value) } : {}),
      ...(r.to ? { to: Date.parse(r.to.value) } : {}),
    };
  const created = range(engine.temporal?.created);
  const updated = range(engine.temporal?.updated);
  return { ...(created ? { created } : {}), ...(updated ? { updated } : {}) };
}

/** Engines OR'ed: every record any engine found, at its best similarity. */
async function union(results: Found[][], slices: Slices): Promise<Found[]> {
  if (results.length === 1) return results[0]!;
  const best = new Map<string, Found>();
  for (const found of results) {
    for (const hit of found) {
      if (slices.due) await slices.next();
      const before = best.get(hit.id);
      if (!before) {
        best.set(hit.id, hit);
        continue;
      }
      const better = hit.similarity > before.similarity ? hit : before;
      // A conversation keeps the messages that matched its words, whichever engine found it best.
      const matched = [before, hit].find((h) => h.conversation && h.conversation.messages.length + h.conversation.annotations.length > 0);
      best.set(hit.id, {
        ...better,
        temporal: before.temporal || hit.temporal,
        ...(matched?.conversation ? { conversation: { ...matched.conversation, similarity: better.similarity } } : {}),
      });
    }
  }
  return ranked([...best.values()]);
}

/** Engines AND'ed: the records every engine found, at their mean similarity. */
async function intersect(results: Found[][], slices: Slices): Promise<Found[]> {
  if (results.length === 0) return [];
  if (results.length === 1) return results[0]!;
  const maps = results.map((found) => new Map(found.map((hit) => [hit.id, hit])));
  const kept: Found[] = [];
  for (const hit of results[0]!) {
    if (slices.due) await slices.next();
    const all = maps.map((map) => map.get(hit.id));
    if (all.some((h) => h === undefined)) continue;
    const similarity = all.reduce((sum, h) => sum + h!.similarity, 0) / all.length;
    const withText = all.find((h) => h!.conversation && h!.conversation.messages.length > 0) ?? hit;
    kept.push({ ...withText!, similarity, temporal: all.some((h) => h!.temporal) });
  }
  return ranked(kept);
}

const ranked = (found: Found[]) => found.sort((a, b) => b.similarity - a.similarity);

function searchedMessage(
  hit: Pick<Found, 'similarity' | 'temporal'>,
  record: MessageRecord,
  matcher: QueryMatcher,
  transferables: boolean,
): SearchedConversationMessage {
  const text = messageText(record);
  const searched: SearchedConversationMessage = {
    exact: matcher.holds(text),
    similarity: round(hit.similarity),
    identifier: record.id,
  };
  if (hit.temporal) searched.temporal = true;
  if (transferables) {
    searched.message = renderMessage(record, { transferables });
    const cut = matcher.snippet(text);
    if (cut) searched.snippet = cut;
  }
  return searched;
}

function searchedAnnotation(
  hit: Pick<TextHit, 'similarity'>,
  record: AnnotationRecord,
  matcher: QueryMatcher,
  transferables: boolean,
): SearchedAnnotation {
  const searched: SearchedAnnotation = {
    exact: matcher.holds(record.text),
    similarity: round(hit.similarity),
    identifier: record.id,
  };
  if (transferables) {
    searched.annotation = renderAnnotation(record);
    const cut = matcher.snippet(record.text);
    if (cut) searched.snippet = cut;
  }
  return searched;
}

const messageText = (record: MessageRecord | undefined) => record?.fragment?.string?.raw ?? '';
const round = (similarity: number) => Math.round(similarity * 10_000) / 10_000;
const normalized = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');

/** The sum of `measure` over `items`. */
function sumOf<T>(items: readonly T[], measure: (item: T) => number): number {
  let sum = 0;
  for (const item of items) sum += measure(item);
  return sum;
}

/** Characters of a conversation's outline in the answer, besides its name: its message ids and its annotations' texts. */
function outlineChars(snapshot: Awaited<ReturnType<typeof conversationSnapshot>> | undefined): number {
  if (!snapshot) return 0;
  let chars = sumOf(snapshot.conversation.messages, (id) => id.length);
  for (const annotation of snapshot.annotations.values()) chars += annotation.text.length;
  return chars;
}

/**
 * The queries of a search, looked for in each record of its answer: each distinct query once, and
 * for snippets the first {@link MAX_QUERY_WORDS} distinct words of them all in one pattern, so a
 * record costs a few passes over its text however many engines said the same words.
 */
class QueryMatcher {
  /** The queries normalized (lower case, runs of spaces as one), each once. */
  readonly #exact: string[];
  /** The queries in lower case, each once. */
  readonly #whole: string[];
  /** Their words of two characters or more: the first match of any, the first word listed at a tie. */
  readonly #words: RegExp | undefined;

  constructor(queries: readonly string[]) {
    this.#exact = [...new Set(queries.map((query) => normalized(query.trim())).filter((query) => query !== ''))];
    this.#whole = [...new Set(queries.map((query) => query.toLowerCase()))];
    const words = new Set<string>();
    for (const query of this.#whole) {
      for (const word of query.match(/[\p{L}\p{N}_]{2,}/gu) ?? []) if (words.size < MAX_QUERY_WORDS) words.add(word);
    }
    // Letters, digits and `_` only: nothing to escape.
    this.#words = words.size > 0 ? new RegExp([...words].join('|'), 'g') : undefined;
  }

  /** Whether `text` holds one of the queries verbatim, letter case and runs of spaces aside. */
  holds(text: string): boolean {
    if (this.#exact.length === 0 || text === '') return false;
    const haystack = normalized(text);
    return this.#exact.some((query) => haystack.includes(query));
  }

  /** About {@link SNIPPET_CHARS} characters of `text` around the first place a query, or one of its words, occurs. */
  snippet(text: string): string | undefined {
    if (text === '') return undefined;
    const lower = text.toLowerCase();
    let at = -1;
    let length = 0;
    for (const query of this.#whole) {
      const whole = lower.indexOf(query);
      if (whole >= 0) {
        at = whole;
        length = query.length;
        break;
      }
    }
    if (at < 0 && this.#words) {
      this.#words.lastIndex = 0;
      const word = this.#words.exec(lower);
      if (word) {
        at = word.index;
        length = word[0].length;
      }
    }
    if (at < 0) at = 0;
    const start = Math.max(0, at - Math.floor((SNIPPET_CHARS - length) / 3));
    const end = Math.min(text.length, start + SNIPPET_CHARS);
    const cut = text.slice(start, end).replace(/\s+/g, ' ').trim();
    return (start > 0 ? '…' : '') + cut + (end < text.length ? '…' : '');
  }
}
