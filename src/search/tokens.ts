import { createRequire } from 'node:module';
import type { QueryWord } from '../search-types.js';

// The Porter2 stemmer that ships inside wink-eng-lite-web-model (already a dependency, for the
// summarizer): English words lose their endings, so "installing" finds "installed".
const stemWord = createRequire(import.meta.url)('wink-eng-lite-web-model/dist/porter-stemmer.js') as (word: string) => string;

/** Words that say nothing of what a chat is about: not indexed (their postings would be most of the index), dropped from queries. */
const STOP_WORDS = new Set(
  'a an and are as at be but by do for from has have i if in into is it its me my no not of on or our so than that the their them then there these they this to was we were what when where which who will with would you your'.split(
    ' ',
  ),
);

/** Terms longer than this are hashes, base64 or minified code: nobody searches for them by word. */
const MAX_TERM_CHARS = 40;

/** Where an identifier splits: `useEffect` → use|Effect, `HTTPServer` → HTTP|Server, `v2Api` → v|2|Api. */
const IDENTIFIER_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[\p{L}\p{N}]+/gu;
/** A word made of parts: snake_case, camelCase, HTTPServer, v2. */
const COMPOUND = /_|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;
const ASCII_WORD = /^[a-z]+$/;

/** Lower-cased word → its term ('' for a stop word or an over-long one), remembered: a chat repeats its words. */
const terms = new Map<string, string>();
/** The term a lower-cased word is indexed as: stemmed, or '' for a stop word or an over-long word. */
export function termOf(lower: string): string {
  let term = terms.get(lower);
  if (term === undefined) {
    term = uncachedTermOf(lower);
    if (terms.size >= 100_000) terms.clear();
    terms.set(lower, term);
  }
  return term;
}

/** {@link termOf} without remembering: for the made-up words of typo expansion, which would crowd out real ones. */
export function uncachedTermOf(lower: string): string {
  return STOP_WORDS.has(lower) || lower.length > MAX_TERM_CHARS ? '' : lower.length > 3 && ASCII_WORD.test(lower) ? stemWord(lower) : lower;
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** 1: a-z, 2: A-Z, 3: 0-9, 4: `_`, 0: anything else of ASCII. */
export const ASCII_CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = 1;
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = 2;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = 3;
ASCII_CLASS[95] = 4;

/**
 * Calls `visit` with where each word of `text` starts and ends: runs of letters, digits and
 * underscores (`index.ts` is two words), split where a script written without spaces (Chinese,
 * Japanese, Korean, Thai) meets another (`请问useEffect` is two words). A hand-written scan: it runs
 * on every message written, and is five times faster than `matchAll`.
 */
export function forEachWord(text: string, visit: (start: number, end: number) => void): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    const first = wordCharAt(text, i);
    if (first === 0) {
      i++;
      continue;
    }
    const start = i;
    i = wordEnd(text, start, first);
    visit(start, i);
  }
}

/**
 * Where the word starting at `start` ends, its first character being `first` UTF-16 units long
 * (see {@link wordCharAt}). The one rule for where a word ends: {@link forEachWord} and the
 * indexing's own scan (word-lists.ts) both ask it.
 */
export function wordEnd(text: string, start: number, first: number): number {
  const length = text.length;
  const unspaced = isUnspaced(text.codePointAt(start)!);
  let i = start + first;
  while (i < length) {
    const size = wordCharAt(text, i);
    if (size === 0 || (size === 2 || text.charCodeAt(i) >= 128 ? isUnspaced(text.codePointAt(i)!) : false) !== unspaced) break;
    i += size;
  }
  return i;
}

/** The UTF-16 units of the letter, digit or underscore at `i` (2 for one beyond the BMP), or 0 for anything else. */
export function wordCharAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) return ASCII_CLASS[code] === 0 ? 0 : 1;
  if (code >= 0xd800 && code <= 0xdbff) return LETTER_OR_DIGIT.test(String.fromCodePoint(text.codePointAt(i)!)) ? 2 : 0;
  return LETTER_OR_DIGIT.test(text[i]!) ? 1 : 0;
}

/** Whether a character is of a script written without spaces between words. */
function isUnspaced(code: number): boolean {
  return (
    (code >= 0x0e00 && code <= 0x0e7f) || // Thai
    (code >= 0x1100 && code <= 0x11ff) || // Hangul Jamo
    (code >= 0x3040 && code <= 0x30ff) || // Hiragana, Katakana
    (code >= 0x3400 && code <= 0x9fff) || // CJK
    (code >= 0xac00 && code <= 0xd7af) || // Hangul
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility
    (code >= 0x20000 && code <= 0x3ffff) // CJK extensions
  );
}

/**
 * Calls `emit` with each term of `text`, in order: words lower-cased and stemmed, identifiers both
 * whole and in parts (`ERR_MODULE_NOT_FOUND` → `err_module_not_found`, `err`, `modul`, `found`;
 * `useEffect` → `useeffect`, `use`, `effect`), Chinese, Japanese, Korean and Thai as pairs of
 * characters. Stop words and terms of over 40 characters are left out.
 */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  forEachWord(text, (start, end) => forEachTermOfWord(text.slice(start, end), emit));
}

/** The terms of one word (as {@link forEachWord} finds them), in order. */
export function forEachTermOfWord(word: string, emit: (term: string) => void): void {
  if (!ASCII_ONLY.test(word)) {
    emitWord(word, emit);
    return;
  }
  const lower = word.toLowerCase();
  const term = termOf(lower);
  if (term !== '') emit(term);
  if (lower !== word ? COMPOUND.test(word) : word.includes('_') || /\d/.test(word)) emitParts(word, lower, emit);
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** A word with letters beyond ASCII: as {@link forEachTerm}, with Unicode rules. */
function emitWord(word: string, emit: (term: string) => void): void {
  // Words are of one kind of script (see forEachWord): its first character says which.
  if (isUnspaced(word.codePointAt(0)!)) {
    emitPairs(word.toLowerCase(), emit);
    return;
  }
  const lower = word.toLowerCase();
  const term = termOf(lower);
  if (term !== '') emit(term);
  if (COMPOUND.test(word)) emitParts(word, lower, emit);
}

/**
 * Parts of one identifier indexed (and looked for), at most: the first ones. Real identifiers have
 * a handful (`AbstractSingletonProxyFactoryBean` has five); a word of hundreds of parts is made up,
 * and each part is a posting list a query walks.
 */
export const MAX_IDENTIFIER_PARTS = 16;

/**
 * An identifier's parts, so `effect` finds `useEffect` and `module` finds `ERR_MODULE_NOT_FOUND`:
 * the first {@link MAX_IDENTIFIER_PARTS}, the same when indexed and when asked, so queries match.
 */
function emitParts(word: string, lower: string, emit: (term: string) => void): void {
  IDENTIFIER_PART.lastIndex = 0;
  for (let parts = 0, part = IDENTIFIER_PART.exec(word); part !== null && parts < MAX_IDENTIFIER_PARTS; part = IDENTIFIER_PART.exec(word)) {
    parts++;
    const piece = part[0].toLowerCase();
    if (piece.length < 2 || piece === lower) continue;
    const term = termOf(piece);
    if (term !== '') emit(term);
  }
}

function emitPairs(word: string, emit: (term: string) => void): void {
  const chars = [...word];
  if (chars.length === 1) emit(word);
  for (let i = 0; i + 1 < chars.length; i++) emit(chars[i]! + chars[i + 1]!);
}

/** The terms of `text` (see {@link forEachTerm}). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  forEachTerm(text, (term) => terms.push(term));
  return terms;
}

/** Words of a query read at most: a longer query is cut (it stays a search, not a workload). */
export const MAX_QUERY_WORDS = 32;
/**
 * Terms of one query word looked for, at most: a run of Chinese is one word of a term per pair of
 * characters, and its first 32 pairs find what it is about.
 */
export const MAX_WORD_TERMS = 32;

/** The words of a query, each with its terms (its first {@link MAX_WORD_TERMS}), each once; stop words are left out. */
export function queryWords(query: string): QueryWord[] {
  const words = new Map<string, QueryWord>();
  forEachWord(query, (start, end) => {
    if (words.size >= MAX_QUERY_WORDS) return;
    const typed = query.slice(start, end).toLowerCase();
    if (words.has(typed)) return;
    const terms = new Set<string>();
    forEachTermOfWord(query.slice(start, end), (term) => {
      if (terms.size < MAX_WORD_TERMS) terms.add(term);
    });
    if (terms.size > 0) words.set(typed, { terms: [...terms], typed });
  });
  return [...words.values()];
}

/** Whether the query's last word may still be being typed (no space or punctuation after it). */
export function endsInWord(query: string): boolean {
  return /[\p{L}\p{N}_]$/u.test(query);
}
