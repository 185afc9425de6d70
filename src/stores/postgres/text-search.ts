import type { ConversationHit, IndexedDocRef, QueryWord, TextHit, TextQuery, TextSearch } from '../../ports.js';
import {
  idf,
  K1,
  MAX_TYPO_WORDS,
  oneEditAway,
  PREFIX_EXPANSIONS,
  stemsTypedPast,
  TopLists,
  typoWorthTrying,
  WEIGHT_PREFIX,
  WEIGHT_TYPO,
} from '../../search/ranking.js';
import { FIELDS } from '../../search/record-docs.js';
import { SearchBudget } from '../../search/search-budget.js';
import { uncachedTermOf } from '../../search/tokens.js';
import { Slices } from '../../slices.js';
import type { PostgresQuery, PostgresResult } from './pool.js';
import { COUNT_CAP, type DocumentKind, type SearchQueries, type SearchStats } from './search-queries.js';
import { fromText } from './texts.js';

/** Spellings of a typo tried between two looks at the request's clock (each goes through the stemmer). */
const TYPO_STEP = 64;

/** One posting list a query word stands for: a term, its weight (1; less for a prefix or a typo) and its documents. */
interface List {
  readonly term: string;
  readonly weight: number;
  readonly count: number;
}

type Stats = SearchStats;

/**
 * Full-text search over the PostgreSQL store's search tables (see search-writes.ts, which every
 * transaction writes them with): the embedded index's semantics (src/search/text-index.ts) —
 * the service's own terms (identifiers split, stems), a query word's prefix expansions and typos
 * (bounded by the request's `SEARCH_BUDGET`), BM25 for messages, BM25F for conversations over
 * their first request, name and annotations — with the scoring done in the database, one
 * statement per search, over the postings of the words' terms. What it reads is what is
 * committed when the statement runs: every write acknowledged before a search started, by any
 * instance, is in it, with no feed to wait for.
 */
export class PostgresTextSearch implements TextSearch {
  /** Terms' counts of postings (their document frequencies) read lately. */
  readonly #counts = new TermCounts();
  /** Terms' counts of conversations that hold them, read lately (only long lists' are counted whole, and so kept). */
  readonly #conversationCounts = new TermCounts();

  constructor(
    private readonly run: (query: PostgresQuery) => Promise<PostgresResult>,
    private readonly sql: SearchQueries,
  ) {}

  searchMessages(query: TextQuery): Promise<TextHit[]> {
    return this.#documents(query, 'messages');
  }

  searchAnnotations(query: TextQuery): Promise<TextHit[]> {
    return this.#documents(query, 'annotations');
  }

  /** Messages or annotations that match, scored as the embedded index scores them (BM25; an annotation's length not counted). */
  async #documents(query: TextQuery, kind: DocumentKind): Promise<TextHit[]> {
    const budget = query.budget ?? new SearchBudget();
    const stats = this.#stats();
    if (query.words.length === 0) {
      budget.spend('postings', (await stats).docs);
      const { rows } = await this.run(this.sql.newest(kind, query));
      return (rows as DocHitRow[]).map((row) => ({ ...docHit(row), similarity: 0 }));
    }
    const [groups, known] = await Promise.all([this.#lists(query, budget), stats]);
    if (groups.length === 0) return [];
    const bound = docBound(groups, known) || 1;
    const { rows } = await this.run(this.sql.messages(query, entries(groups, known), known, kind));
    return (rows as DocHitRow[]).map((row) => ({ ...docHit(row), similarity: Math.min(1, row.score / bound) }));
  }

  async searchConversations(query: TextQuery): Promise<ConversationHit[]> {
    const budget = query.budget ?? new SearchBudget();
    const stats = this.#stats();
    if (query.words.length === 0) {
      budget.spend('postings', (await stats).docs);
      const { rows } = await this.run(this.sql.newest('conversations', query));
      return (rows as DocHitRow[]).map((row) => ({ id: fromText(row.id), similarity: 0, messages: [], annotations: [] }));
    }
    const [groups, known] = await Promise.all([this.#lists(query, budget), stats]);
    if (groups.length === 0) return [];
    const bound = docBound(groups, known) || 1;
    const lists = entries(groups, known);
    const kept = this.#conversationCounts.known(lists[0], true);
    const counts = lists[0].map((term) => kept.get(term) ?? null);
    const { rows } = await this.run(this.sql.conversations(query, lists, known, groups.length, counts));
    const counted = (rows[0] as ConversationRow | undefined)?.counted;
    if (counted) {
      for (const [term, count] of Object.entries(JSON.parse(counted) as Record<string, number>)) {
        if (!kept.has(term)) this.#conversationCounts.learn(term, count);
      }
    }
    const hits: ConversationHit[] = [];
    let current: { id: string; similarity: number; messages: TextHit[]; annotations: TextHit[] } | undefined;
    for (const row of rows as ConversationRow[]) {
      const id = fromText(row.conversation);
      if (current?.id !== id) {
        current = { id, similarity: Math.min(1, row.conversation_score / (row.conversation_bound || 1)), messages: [], annotations: [] };
        hits.push(current);
      }
      if (row.id === null) continue;
      const hit: TextHit = {
        id: fromText(row.id),
        field: FIELDS[row.field!]!,
        conversation: id,
        similarity: Math.min(1, row.score! / bound),
      };
      (row.field === 3 ? current.annotations : current.messages).push(hit);
    }
    return hits;
  }

  async documents(): Promise<Iterable<IndexedDocRef>> {
    const { rows } = await this.run({ text: this.sql.documents });
    return (rows as { field: number; id: string; conversation: string | null }[]).map((row) => ({
      field: FIELDS[row.field]!,
      id: fromText(row.id),
      conversation: row.conversation === null ? undefined : fromText(row.conversation),
    }));
  }

  /** The postings of the words' own terms (a lower bound of what a search of them reads). */
  async postings(words: readonly QueryWord[]): Promise<number> {
    const terms = [...new Set(words.flatMap((word) => word.terms))];
    if (terms.length === 0) return 0;
    const counts = this.#counts.known(terms);
    const unknown = terms.filter((term) => !counts.has(term));
    if (unknown.length > 0) {
      const { rows } = await this.run(this.sql.named(this.sql.cappedCounts, [unknown]));
      const capped = new Map(
        (rows as { term: string; count: number }[]).filter((row) => row.count > 0).map((row) => [row.term, row.count]),
      );
      for (const [term, count] of await this.#whole(capped)) counts.set(term, count);
    }
    return [...counts.values()].reduce((sum, count) => sum + count, 0);
  }

  async #stats(): Promise<Stats> {
    const { rows } = await this.run(this.sql.named(this.sql.stats, []));
    const row = rows[0] as Record<keyof Stats, number | null>;
    return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value ?? 0])) as unknown as Stats;
  }

  /**
   * The posting lists of each term of each query word, as the embedded index finds them (see
   * `TextIndex.#listsFor`): the term itself; for the last word when it may still be typed, the
   * most frequent longer terms it starts and the stems it was typed past; for a word the store
   * does not hold, its spellings one typo away that it does (for a query's first four such words,
   * within the budget). Their postings are counted against the budget before any is read.
   */
  async #lists(query: TextQuery, budget: SearchBudget): Promise<List[][]> {
    const slices = query.slices ?? new Slices();
    const words = query.words;
    const last = words.length - 1;
    const prefixWord = query.prefix && words[last]!.typed.length >= 2 ? words[last]! : undefined;
    const stems = prefixWord ? stemsTypedPast(prefixWord.typed) : [];
    const own = [...new Set([...words.flatMap((word) => word.terms), ...stems])];
    const counts = this.#counts.known(own, true);
    // Longer terms the prefix starts: looked at up to the budget, each with its count (capped: the most frequent are kept).
    const most = prefixWord ? Math.min(budget.limits.prefixTermsPerWord, budget.left('prefixTerms'), this.sql.prefixScan) : 0;
    const longer: [string, number][] = [];
    const unknown = own.filter((term) => !counts.has(term));
    if (unknown.length > 0 || most > 0) {
      const { rows } = await this.run(this.sql.named(this.sql.lookup, [unknown, prefixWord?.typed ?? null, most]));
      for (const row of rows as { kind: number; term: string; count: number }[]) {
        if (row.kind === 1) longer.push([row.term, row.count]);
        else if (row.count > 0) counts.set(row.term, this.#counts.learn(row.term, row.count));
      }
    }

    const groups: List[][] = [];
    let typoWords = MAX_TYPO_WORDS;
    for (let w = 0; w < words.length; w++) {
      const word = words[w]!;
      const fuzzy = (query.fuzzy ?? true) && word.terms.length === 1 && typoWords > 0;
      for (const term of word.terms) {
        const lists: List[] = [];
        const exact = counts.get(term);
        if (exact !== undefined) lists.push({ term, weight: 1, count: exact });
        if (word === prefixWord) {
          const best = new TopLists<List>(PREFIX_EXPANSIONS);
          for (const [candidate, count] of longer) {
            if (candidate !== term && candidate.length > word.typed.length)
              best.offer({ term: candidate, weight: WEIGHT_PREFIX, count }, count);
          }
          budget.expand('prefixTerms', longer.length);
          for (const stem of stems) {
            const count = counts.get(stem);
            if (count !== undefined && stem !== term) best.offer({ term: stem, weight: WEIGHT_PREFIX, count }, count);
          }
          lists.push(...best.best());
        }
        if (exact === undefined && fuzzy && typoWorthTrying(word.typed, budget.left('typoSpellings'))) {
          lists.push(...(await this.#typos(word.typed, budget, slices)));
          typoWords--;
        }
        if (lists.length > 0) groups.push(lists);
      }
    }
    budget.spend(
      'postings',
      groups.reduce((sum, lists) => sum + lists.reduce((n, list) => n + list.count, 0), 0),
    );
    return groups;
  }

  /** The terms one typo from `typed` that the store holds (typos are made in words as typed, before stemming), with their counts. */
  async #typos(typed: string, budget: SearchBudget, slices: Slices): Promise<List[]> {
    const spelled = new Set<string>();
    let tried = 0;
    for (const candidate of oneEditAway(typed)) {
      if (++tried % TYPO_STEP === 0 && slices.due) await slices.next();
      spelled.add(uncachedTermOf(candidate));
    }
    spelled.delete('');
    budget.expand('typoSpellings', tried);
    const { rows } = await this.run(this.sql.named(this.sql.cappedCounts, [[...spelled]]));
    const held = new Map((rows as { term: string; count: number }[]).filter((row) => row.count > 0).map((row) => [row.term, row.count]));
    return [...(await this.#whole(held))].map(([term, count]) => ({ term, weight: WEIGHT_TYPO, count }));
  }

  /**
   * Counts read up to COUNT_CAP, made whole: a term at the cap is counted in full (all its
   * postings read), unless its count was read lately; each is kept (see TermCounts).
   */
  async #whole(capped: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const frequent: string[] = [];
    for (const [term, count] of capped) {
      if (count < COUNT_CAP) counts.set(term, this.#counts.learn(term, count));
      else frequent.push(term);
    }
    if (frequent.length > 0) {
      const kept = this.#counts.known(frequent, true);
      const missing = frequent.filter((term) => !kept.has(term));
      for (const [term, count] of kept) counts.set(term, count);
      if (missing.length > 0) {
        const { rows } = await this.run(this.sql.named(this.sql.counts, [missing]));
        for (const row of rows as { term: string; count: number }[]) counts.set(row.term, this.#counts.learn(row.term, row.count));
      }
    }
    return counts;
  }
}

/** A document found, as the statements answer it. */
type DocHitRow = {
  field: number;
  id: string;
  conversation: string | null;
  score: number;
};

/** A conversation found (one row per document shown with it, or one with none). */
type ConversationRow = {
  conversation: string;
  conversation_score: number;
  conversation_bound: number;
  /** The counts of conversations the statement made of long lists' terms (JSON: term to count), or null. */
  counted: string | null;
  id: string | null;
  field: number | null;
  score: number | null;
};

function docHit(row: DocHitRow): Omit<TextHit, 'similarity'> {
  return {
    id: fromText(row.id),
    field: FIELDS[row.field]!,
    conversation: row.conversation === null ? undefined : fromText(row.conversation),
  };
}

/** Each list of each group as the scoring statement takes them: term, group, weight, idf. */
function entries(groups: readonly List[][], stats: Stats): [string[], number[], number[], number[]] {
  const columns: [string[], number[], number[], number[]] = [[], [], [], []];
  const docs = Math.max(1, stats.docs);
  groups.forEach((lists, group) => {
    for (const list of lists) {
      columns[0].push(list.term);
      columns[1].push(group);
      columns[2].push(list.weight);
      columns[3].push(idf(docs, list.count));
    }
  });
  return columns;
}

/** The highest score a document could have (what similarity 1 means): each group's best list, fully matched. */
function docBound(groups: readonly List[][], stats: Stats): number {
  const docs = Math.max(1, stats.docs);
  let bound = 0;
  for (const lists of groups) bound += Math.max(...lists.map((list) => list.weight * idf(docs, list.count) * (K1 + 1)));
  return bound;
}

/** How long a term's count of postings is taken as it was read: BM25's idf moves slowly; which documents match is read anew by every search. */
const COUNT_TTL_MS = 10_000;
/**
 * How long the count of a frequent term (COUNT_CAP postings or more, a count that reads them all)
 * is taken as it was read: a few hundred postings more or less change its idf by little.
 */
const FREQUENT_COUNT_TTL_MS = 60_000;
/** Terms whose counts are kept, at most (the oldest go first). */
const COUNTS_KEPT = 10_000;

/**
 * Terms' counts of postings read lately, for a few seconds (a minute for a frequent term): a
 * count is a scan of the term's postings, and a frequent term is asked often. Only a term the
 * store holds is kept: one it did not hold is asked again, so a word written since is found at once.
 */
class TermCounts {
  readonly #counts = new Map<string, { count: number; at: number }>();

  /** The counts kept (and fresh) of these terms; with `frequent`, those of frequent terms kept longer too. */
  known(terms: readonly string[], frequent = false): Map<string, number> {
    const now = Date.now();
    const known = new Map<string, number>();
    for (const term of terms) {
      const kept = this.#counts.get(term);
      if (!kept) continue;
      const ttl = frequent && kept.count >= COUNT_CAP ? FREQUENT_COUNT_TTL_MS : COUNT_TTL_MS;
      if (now - kept.at < ttl) known.set(term, kept.count);
    }
    return known;
  }

  /** Keeps a count just read, and answers it. */
  learn(term: string, count: number): number {
    this.#counts.delete(term);
    if (this.#counts.size >= COUNTS_KEPT) this.#counts.delete(this.#counts.keys().next().value!);
    this.#counts.set(term, { count, at: Date.now() });
    return count;
  }
}
