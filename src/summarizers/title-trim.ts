import { isVerbLike } from './grammar.js';
import { isNominal, isWordy, joinTokens, startsPhrase, type Token } from './tokens.js';

/** Fitting a title into its word and character limits without cutting a phrase in half. */

const PARTICLES = /^(out|up|down|off|on|in|over|away|back|through)$/;

/** Drops words a title must not end with: articles, prepositions, conjunctions. */
export function trimTail(tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  for (;;) {
    const last = out[out.length - 1];
    if (!last) break;
    const particle = PARTICLES.test(last.lower) && isVerbLike(out[out.length - 2]);
    // A final `is` can be right (`What a monad is`), so auxiliaries stay; `cut` never ends on one.
    const weak = last.stop || /^(DET|ADP|CCONJ|SCONJ|PART)$/.test(last.pos);
    if (!isWordy(last) || (!particle && weak && !/^(it|them|this|that|is|are|works?|does)$/.test(last.lower))) {
      out.pop();
      continue;
    }
    break;
  }
  return out;
}

const STRONG_BREAK = new RegExp(
  '^(that|which|who|where|when|because|so|if|while|after|before|since|until|unless|but|and|or|' +
    'using|via|whenever|without|even|though|although|whereas|despite)$',
);

/**
 * Shortens to at most `max` words at the best phrase boundary: before a clause (`that …`, `when
 * …`, a comma) rather than inside a noun compound or between a verb and its object.
 */
export function cut(tokens: readonly Token[], max: number): Token[] {
  const starts: number[] = [];
  tokens.forEach((t, i) => {
    if (i === 0 || t.space) starts.push(i);
  });
  if (starts.length <= max) return [...tokens];
  let best = -1;
  let bestScore = -Infinity;
  for (let k = 2; k <= max; k += 1) {
    const end = starts[k]!; // tokens[0, end) hold the first k words
    const last = tokens[end - 1]!;
    const before = tokens[end - 2];
    const next = tokens[end]!;
    const particle = PARTICLES.test(last.lower) && isVerbLike(before);
    if (!isWordy(last) || (!particle && (last.stop || /^(DET|ADP|CCONJ|SCONJ|PART|AUX|PRON)$/.test(last.pos)))) continue;
    if (startsPhrase(next) && (isNominal(last) || last.pos === 'ADJ')) continue; // inside a compound
    if (isVerbLike(last) && !isNominal(last) && (startsPhrase(next) || next.pos === 'DET' || next.pos === 'PRON')) continue;
    if (isVerbLike(last) && before && /^(ADP|SCONJ)$/.test(before.pos)) continue; // `after upgrading`
    if (next.lower === 'of') continue; // `a list | of dictionaries` belongs together
    // `both X | and Y`, `between X | and Y` are one phrase.
    const paired = tokens.slice(Math.max(0, end - 4), end).some((t) => /^(both|between|either)$/.test(t.lower));
    if (next.lower === 'and' && paired) continue;
    const clause = /^[,;:(\-–—]$/.test(next.text) || next.pos === 'SCONJ' || STRONG_BREAK.test(next.lower);
    const strength = clause ? 2 : next.pos === 'ADP' ? 1 : 0;
    const score = k + 4 * strength;
    if (score >= bestScore) {
      bestScore = score;
      best = end;
    }
  }
  return tokens.slice(0, best > 0 ? best : starts[max]!);
}

// Titles are also bounded in characters: a pasted 3,000-letter "word" must not become one.
const MAX_TITLE_CHARS = 80;

export function render(tokens: readonly Token[]): string {
  let text = joinTokens(tokens)
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?])(?![\p{L}\d_])/gu, '$1')
    .trim();
  if (text.length > MAX_TITLE_CHARS) {
    const space = text.lastIndexOf(' ', MAX_TITLE_CHARS);
    text = space > 20 ? text.slice(0, space) : [...text].slice(0, 60).join('');
  }
  return text.replace(/[\s,.;:!?\-–—]+$/u, '');
}
