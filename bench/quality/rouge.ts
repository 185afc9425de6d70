/**
 * ROUGE-1, ROUGE-2 and ROUGE-L F1 in the convention of Google's `rouge_score` package with
 * `use_stemmer=True`: text is lower-cased, tokens are runs of `[a-z0-9]` (anything else separates
 * them), tokens longer than 3 characters are Porter-stemmed, and ROUGE-L is one longest common
 * subsequence over the whole text (not the summary-level `rougeLsum`).
 */
import { porterStem } from './porter.js';

export interface Score {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

export interface RougeScores {
  readonly rouge1: Score;
  readonly rouge2: Score;
  readonly rougeL: Score;
}

const stems = new Map<string, string>();

/** The `rouge_score` tokens of `text`. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const token of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (token === '') continue;
    if (token.length <= 3) {
      out.push(token);
      continue;
    }
    let stem = stems.get(token);
    if (stem === undefined) stems.set(token, (stem = porterStem(token)));
    out.push(stem);
  }
  return out;
}

function score(overlap: number, predicted: number, expected: number): Score {
  const precision = overlap / Math.max(predicted, 1);
  const recall = overlap / Math.max(expected, 1);
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function ngrams(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i += 1) {
    const gram = tokens.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N of token lists: clipped n-gram overlap over the prediction's and the reference's n-gram counts. */
export function rougeN(reference: readonly string[], prediction: readonly string[], n: number): Score {
  const expected = ngrams(reference, n);
  const predicted = ngrams(prediction, n);
  let overlap = 0;
  for (const [gram, count] of predicted) overlap += Math.min(count, expected.get(gram) ?? 0);
  const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
  return score(overlap, total(predicted), total(expected));
}

/** Length of the longest common subsequence of two token lists. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j += 1) row[j] = x === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  return previous[b.length]!;
}

/** ROUGE-L of token lists: the LCS over the prediction's and the reference's lengths. */
export function rougeL(reference: readonly string[], prediction: readonly string[]): Score {
  if (reference.length === 0 || prediction.length === 0) return { precision: 0, recall: 0, f1: 0 };
  return score(lcsLength(reference, prediction), prediction.length, reference.length);
}

/** ROUGE-1/2/L of `prediction` against `reference` (argument order as in `rouge_score`: target first). */
export function rouge(reference: string, prediction: string): RougeScores {
  const r = tokenize(reference);
  const p = tokenize(prediction);
  return { rouge1: rougeN(r, p, 1), rouge2: rougeN(r, p, 2), rougeL: rougeL(r, p) };
}
