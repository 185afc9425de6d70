import { ServiceError } from '../errors.js';

/**
 * The most work one search request may do, counted across all its engines and across the records
 * of its answer, so that no request body, however it is made up, costs more than a fraction of a
 * second of CPU. Two kinds:
 *
 * - Expansions (typos, prefixes) make a search forgiving; past their budget a search goes on
 *   without them (a word is taken as typed). They are counted by what is expanded, not by what is
 *   found: a made-up word costs as much to expand as a real one.
 * - Work the query itself asks for (postings to walk, records' text to read and render) is refused
 *   past its budget: 413 `PAYLOAD_TOO_LARGE`, with `details.budget` naming it and `details.limit`
 *   its value, decided from counts known before the work is done (a posting list's length, a
 *   record's text length), so a refusal is fast.
 *
 * Measured against real searches (`npm run bench:attacks`, the developer chats at 50,000
 * conversations): the most any of them used is a small share of each.
 */
export const SEARCH_BUDGET = {
  /**
   * Spellings one typo away tried, in all (a word of n letters has about 74·n; each goes through
   * the stemmer). A query's first four words the index does not hold are looked for with a typo,
   * as long as their spellings fit.
   */
  typoSpellings: 8_192,
  /** Terms looked at for words being typed (prefixes), in all; the most frequent 32 of those a prefix starts are kept. */
  prefixTerms: 65_536,
  /** Terms looked at for one prefix. */
  prefixTermsPerWord: 16_384,
  /**
   * Postings walked: for each term of each engine, the documents that hold it (and, for an engine
   * of no words, each document its times are checked against). Over it: refused. Walking 5 million
   * takes about 0.8 s on a slow 2-core machine (what bounds an answer's time); the real searches
   * of a store of 50,000 developer chats use at most 3.1 million (`npm run bench:attacks`).
   */
  postings: 5_000_000,
  /**
   * Characters of the records a search reads once the index has found them: texts checked for
   * `exact` (and kept or not by `full_text.exact`), cut for snippets, rendered into the answer, and
   * the message ids of each conversation's outline. Over it: refused.
   */
  recordChars: 16_000_000,
} as const;

/** A value for each budget of {@link SEARCH_BUDGET}. */
export type SearchBudgetLimits = Readonly<Record<keyof typeof SEARCH_BUDGET, number>>;

/** What a {@link SearchBudget} counts: every budget but the per-word cap on prefixes. */
export type BudgetName = Exclude<keyof typeof SEARCH_BUDGET, 'prefixTermsPerWord'>;

/** The budgets that refuse a search when it would go past them; the others cap expansions. */
export type RefusingBudget = 'postings' | 'recordChars';
type ExpansionBudget = Exclude<BudgetName, RefusingBudget>;

const count = (n: number) => n.toLocaleString('en-US');
const REFUSAL: Readonly<Record<RefusingBudget, (wanted: number, limit: number) => string>> = {
  postings: (wanted, limit) =>
    `This search would walk at least ${count(wanted)} postings, over the ${count(limit)} one request may: use fewer or rarer words, or fewer engines.`,
  recordChars: (wanted, limit) =>
    `This search would read ${count(wanted)} characters of records, over the ${count(limit)} one request may: ask for a smaller page (limit), fewer engines, or transferables=false.`,
};

/**
 * The work one search request has done so far, against {@link SEARCH_BUDGET} (or smaller limits,
 * in tests). Made once per request and handed to each of its queries (`TextQuery.budget`).
 */
export class SearchBudget {
  readonly #used: Record<BudgetName, number> = { typoSpellings: 0, prefixTerms: 0, postings: 0, recordChars: 0 };

  constructor(readonly limits: SearchBudgetLimits = SEARCH_BUDGET) {}

  /** How much of each budget was used so far. */
  get used(): Readonly<Record<BudgetName, number>> {
    return { ...this.#used };
  }

  /** What is left of an expansion budget. */
  left(name: ExpansionBudget): number {
    return Math.max(0, this.limits[name] - this.#used[name]);
  }

  /** Counts `amount` of an expansion; the caller checked {@link left} first, so it never refuses. */
  expand(name: ExpansionBudget, amount: number): void {
    this.#used[name] += amount;
  }

  /**
   * Counts `amount` of work about to be done, or throws PAYLOAD_TOO_LARGE (naming the budget and
   * its limit) when it would go past the budget, and then counts nothing.
   */
  spend(name: RefusingBudget, amount: number): void {
    this.check(name, amount);
    this.#used[name] += amount;
  }

  /** Throws as {@link spend} would for `amount` (a lower bound of work to come, say), counting nothing. */
  check(name: RefusingBudget, amount: number): void {
    const wanted = this.#used[name] + amount;
    const limit = this.limits[name];
    if (wanted > limit) throw new ServiceError('PAYLOAD_TOO_LARGE', REFUSAL[name](wanted, limit), { limit, budget: name });
  }
}
