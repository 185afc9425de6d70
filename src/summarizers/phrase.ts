import { isBaseVerb, startsVerbObject } from './grammar.js';
import { gerund, isInflectable } from './inflect.js';
import { LOWERCASE_BRANDS, VERBS } from './lexicon.js';
import { isWordy, retext, type Token } from './tokens.js';

/** Token-level edits shared by the title and summary writers. */

const FUNCTION_POS = new Set(['DET', 'PRON', 'ADP', 'AUX', 'ADV', 'SCONJ', 'CCONJ', 'PART', 'ADJ', 'INTJ']);

/** Drops final punctuation (`.`, `?`, `:` …) and dangling connectors. */
export function trimEnd(tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  while (out.length > 0 && !isWordy(out[out.length - 1]!) && !/^[)\]"']$/.test(out[out.length - 1]!.text)) out.pop();
  return out;
}

/**
 * `retry a call` → `retrying a call`. With `coordinated`, verbs after `and`/`or`/`then` or a list's
 * commas are turned too (`use X, cap Y and wrap Z` → `using X, capping Y and wrapping Z`) when they
 * clearly start a new verb phrase.
 */
export function gerundize(vp: readonly Token[], coordinated = false): Token[] {
  const out = [...vp];
  const turn = (i: number): void => {
    const t = out[i]!;
    if (/ing$/.test(t.lower) && t.pos === 'VERB') return;
    if (isInflectable(t.text)) out[i] = { ...retext(t, gerund(t.lower)), pos: 'VERB' };
  };
  if (out[0]) turn(0);
  if (coordinated) {
    for (let i = 1; i < out.length - 1; i += 1) {
      const t = out[i]!;
      const next = out[i + 1];
      // A list of imperatives, `use X, retry only Y, and send Z`, ends in a coordinated verb.
      const listItem = t.text === ',' && next && next.pos === 'VERB' && isBaseVerb(next) && next.lower !== 'say';
      if (listItem && startsVerbObject(out[i + 2]) && endsInCoordinatedVerb(out, i + 2)) {
        turn(i + 1);
        continue;
      }
      if (!/^(and|or|then)$/.test(t.lower) || !next) continue;
      const after = out[i + 2];
      const startsPhrase = next.pos === 'VERB' || (after && (after.pos === 'DET' || after.pos === 'PRON'));
      if (isBaseVerb(next) && startsPhrase) turn(i + 1);
      else if (next.lower === 'then' && isBaseVerb(after)) turn(i + 2);
    }
  }
  return out;
}

/** Whether `and`/`or` followed by a verb comes at or after `from`. */
function endsInCoordinatedVerb(tokens: readonly Token[], from: number): boolean {
  for (let j = from; j < tokens.length - 1; j++) if (/^(and|or)$/.test(tokens[j]!.lower) && isBaseVerb(tokens[j + 1])) return true;
  return false;
}

/**
 * Lower-cases a sentence-initial word that is not a name (`The build` → `the build`, `React`
 * stays). With `verb`, the word is known to be a verb (`Use a Map` → `use a Map`).
 */
export function lowerFirst(tokens: readonly Token[], verb = false): Token[] {
  const out = [...tokens];
  const first = out[0];
  // `Next` of `Next.js` is part of a name, whatever its tag.
  if (!first || !/^[A-Z][a-z]*$/.test(first.text) || first.lower === 'i' || out[1]?.space === false) return out;
  const common =
    verb ||
    first.stop ||
    FUNCTION_POS.has(first.pos) ||
    VERBS.has(first.lower) ||
    (first.pos === 'VERB' && first.lemma !== first.lower) ||
    /ing$/.test(first.lower) ||
    /^(today|tomorrow|yesterday|tonight|maybe|perhaps|sometimes|usually|also|now|then|here|there)$/.test(first.lower);
  if (common) out[0] = retext(first, first.lower);
  return out;
}

/** Upper-cases the first letter unless the word is written in lower case by convention (`npm`, `useEffect`). */
export function capitalizeFirst(tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  const first = out[0];
  if (!first || !/^[a-z]/.test(first.text)) return out;
  if (LOWERCASE_BRANDS.has(first.lower) || /[A-Z]/.test(first.text) || /[._/]/.test(first.text)) return out;
  out[0] = retext(first, first.text[0]!.toUpperCase() + first.text.slice(1));
  return out;
}

/** Upper-cases the first character of a finished sentence. */
export function capitalizeText(text: string): string {
  return text.replace(/^(\W*)(\p{Ll})/u, (_, lead: string, letter: string) => lead + letter.toUpperCase());
}

/** Removes parenthesised asides and quote marks, which read badly in titles. */
export function dropAsides(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let space = false; // A dropped token's leading space passes to the next kept token.
  for (const t of tokens) {
    const opens = t.text === '(' || t.text === '[';
    const closes = (t.text === ')' || t.text === ']') && depth > 0;
    const drop = opens || closes || depth > 0 || /^["'`]+$/.test(t.text);
    if (opens) depth += 1;
    else if (closes) depth -= 1;
    if (drop) {
      space ||= t.space;
      continue;
    }
    out.push(space && !t.space && isWordy(t) ? { ...t, space: true } : t);
    space = false;
  }
  if (out[0]) out[0] = { ...out[0], space: false };
  return out;
}

/**
 * Joins token runs taken from different places of a sentence (`why` + `the build` + `fails`): the
 * first token of each later run gets a leading space, even if it opened the original sentence.
 */
export function glue(...runs: ReadonlyArray<readonly Token[]>): Token[] {
  const out: Token[] = [];
  for (const run of runs) {
    run.forEach((t, i) => out.push(i === 0 && out.length > 0 && !t.space ? { ...t, space: true } : t));
  }
  return out;
}

/** `tokens` with the token at `index` replaced by `phrase`, spaced as separate words. */
export function replaceAt(tokens: readonly Token[], index: number, phrase: readonly Token[]): Token[] {
  return glue(
    tokens.slice(0, index),
    phrase,
    tokens.slice(index + 1).map((t, i) => (i === 0 ? { ...t, space: true } : t)),
  );
}
