import type { SearchBudget } from './search/search-budget.js';
import type { Slices } from './slices.js';

// The values the text-search port (`TextSearch` in ports.ts) takes and answers. They live here,
// apart from the embedded index (src/search/), so that the port, and a store that answers it with
// its own full-text search, depend on no index's code.

/** What a document of the index is: a message (the user's or another role's), a conversation's name, an annotation. */
export type Field = 'userMessage' | 'message' | 'name' | 'annotation';

/** Times a query keeps: inclusive bounds in milliseconds since 1970. */
export interface TimeRange {
  readonly from?: number;
  readonly to?: number;
}

/** A search of the index. */
export interface TextQuery {
  /** The query as typed, for stores that tokenize it themselves. */
  readonly text: string;
  /** Its words, tokenized as the index's documents are. */
  readonly words: readonly QueryWord[];
  /** Also find longer words that start with the last word (it is still being typed). */
  readonly prefix: boolean;
  /** Also find words one typo away from a word the index does not hold. Default true. */
  readonly fuzzy?: boolean;
  /** Only this conversation's documents. */
  readonly conversation?: string;
  /** Only documents (for conversations: conversations) created, or updated, within these times. */
  readonly created?: TimeRange;
  readonly updated?: TimeRange;
  /** At most this many hits, best first. */
  readonly limit: number;
  /**
   * The work the request this query is part of may still do, shared by its queries (see
   * `SEARCH_BUDGET`): expansions stop, and walking postings past it is refused with
   * PAYLOAD_TOO_LARGE. A query without one has a budget of its own.
   */
  readonly budget?: SearchBudget;
  /**
   * The request's clock (`src/slices.ts`): a search that gives other requests a turn whenever its
   * slice is used up goes on with the slice its request started (its other engines included),
   * rather than a slice of its own. A query without one starts a slice of its own.
   */
  readonly slices?: Slices;
}

/** A document found: its id, conversation and score (0–1: how much of the query's weight it holds). */
export interface TextHit {
  readonly id: string;
  readonly field: Field;
  readonly conversation: string | undefined;
  readonly similarity: number;
}

/** A conversation found, with its messages and annotations that match (best first). */
export interface ConversationHit {
  readonly id: string;
  readonly similarity: number;
  readonly messages: readonly TextHit[];
  readonly annotations: readonly TextHit[];
}

/** One word of a query: the terms it stands for, and what it was typed as (for prefixes and typos). */
export interface QueryWord {
  /** Its terms as the index holds them (see `forEachTerm` in src/search/tokens.ts). */
  readonly terms: readonly string[];
  /** Lower-cased as typed: the start of longer words when it is the last word and still being typed. */
  readonly typed: string;
}
