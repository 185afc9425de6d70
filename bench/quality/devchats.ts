/**
 * Developer chats with coding assistants (`../shared/data/devchats/dev.jsonl`): JSONL, one object a
 * line with `source`, `license`, `title` (the tool's own title for the chat) and `messages`
 * (`[{ role: 'USER' | 'ASSISTANT', text }]`). No reference summaries: summaries are scored by how
 * many of the reference title's content words they name ("topic share"), next to the same share
 * for the conversation's first N words, N being the summary's length in words.
 */
import { readFile } from 'node:fs/promises';
import type { MessageRole } from '../../src/records.js';
import { mean, outputFigures } from '../stats.js';
import { rouge, tokenize } from './rouge.js';

export interface DevChat {
  readonly id: string;
  readonly title: string;
  readonly messages: readonly { readonly role: MessageRole; readonly text: string }[];
}

export async function readDevChats(file: string): Promise<DevChat[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const row = JSON.parse(line) as { source?: string; title: string; messages: { role: string; text: string }[] };
      return {
        id: row.source ?? `line-${i + 1}`,
        title: row.title,
        messages: row.messages.map((m) => ({ role: (m.role === 'USER' ? 'USER' : 'ASSISTANT') as MessageRole, text: m.text })),
      };
    });
}

const FENCE = /```[\s\S]*?(```|$)/g;

/** Whitespace-separated words of the text with its code blocks removed. */
export function proseWords(text: string): string[] {
  return text.replace(FENCE, ' ').split(/\s+/).filter(Boolean);
}

/** The baseline title: the first 8 words of the first user message, code blocks removed. */
export function first8(chat: DevChat): string {
  const first = chat.messages.find((m) => m.role === 'USER');
  return proseWords(first?.text ?? '')
    .slice(0, 8)
    .join(' ');
}

/** The conversation's first `n` words, code removed, messages in order. */
export function opening(chat: DevChat, n: number): string {
  const out: string[] = [];
  for (const m of chat.messages) {
    if (out.length >= n) break;
    out.push(...proseWords(m.text).slice(0, n - out.length));
  }
  return out.join(' ');
}

// Function words left out of the reference title's content words (stems of the `rouge_score` tokens).
const STOP = new Set(
  (
    'a an the and or but of to in on for with from by at as is are be was were it its this that these those ' +
    'i you we my your our via into onto up out about over not no do does did how what why when where which ' +
    'vs new'
  ).split(' '),
);

/** The reference title's content tokens (stemmed as ROUGE stems them), without repeats. */
export function contentWords(title: string): string[] {
  return [...new Set(tokenize(title).filter((t) => !STOP.has(t)))];
}

/** Share of `reference`'s content words found in `text` (0..1); undefined when it has none. */
export function topicShare(reference: string, text: string): number | undefined {
  const wanted = contentWords(reference);
  if (wanted.length === 0) return undefined;
  const have = new Set(tokenize(text));
  return wanted.filter((w) => have.has(w)).length / wanted.length;
}

export interface DevChatResult {
  readonly id: string;
  readonly reference: string;
  readonly title: string;
  readonly summary: string;
  readonly ms: number;
}

export interface DevChatFigures {
  readonly count: number;
  readonly title: { r1: number; rl: number };
  readonly baseline: { r1: number; rl: number };
  readonly titleRatio: number;
  readonly summaryShare: number;
  readonly openingShare: number;
  readonly emptyTitles: number;
  readonly emptySummaries: number;
  /** Summaries with an emoji or a checklist mark (`✅`, `[x]`), which a note should never copy. */
  readonly markedSummaries: number;
  readonly p50: number;
  readonly p95: number;
  readonly titleWords: number;
  readonly summaryWords: number;
}

const MARKED = /[\p{Extended_Pictographic}\u2610-\u2612\u2713-\u2718]|\[[ xX-]\]/u;

export function devChatFigures(chats: readonly DevChat[], results: readonly DevChatResult[]): DevChatFigures {
  const ours = results.map((r) => rouge(r.reference, r.title));
  const base = chats.map((c) => rouge(c.title, first8(c)));
  const shares: number[] = [];
  const openings: number[] = [];
  results.forEach((r, i) => {
    const n = proseWords(r.summary).length;
    const s = topicShare(r.reference, r.summary);
    const o = topicShare(r.reference, opening(chats[i]!, n));
    if (s !== undefined && o !== undefined) {
      shares.push(s);
      openings.push(o);
    }
  });
  const title = { r1: 100 * mean(ours.map((s) => s.rouge1.f1)), rl: 100 * mean(ours.map((s) => s.rougeL.f1)) };
  const baseline = { r1: 100 * mean(base.map((s) => s.rouge1.f1)), rl: 100 * mean(base.map((s) => s.rougeL.f1)) };
  return {
    count: results.length,
    title,
    baseline,
    titleRatio: title.r1 / baseline.r1,
    summaryShare: 100 * mean(shares),
    openingShare: 100 * mean(openings),
    ...outputFigures(results),
    markedSummaries: results.filter((r) => MARKED.test(r.summary)).length,
    titleWords: mean(results.map((r) => proseWords(r.title).length)),
    summaryWords: mean(results.map((r) => proseWords(r.summary).length)),
  };
}

export function formatDevChatFigures(label: string, f: DevChatFigures): string {
  const n = (x: number): string => x.toFixed(1);
  return [
    `${label} (${f.count} conversations)`,
    '',
    "| titles vs the tools' titles | ROUGE-1 | ROUGE-L |",
    '|---|---:|---:|',
    `| ours | ${n(f.title.r1)} | ${n(f.title.rl)} |`,
    `| first 8 words of the first user message | ${n(f.baseline.r1)} | ${n(f.baseline.rl)} |`,
    '',
    `title ours / baseline (ROUGE-1): ${f.titleRatio.toFixed(3)}× (target ≥ 1.2×)`,
    `summary topic share (reference title's content words named): ours ${n(f.summaryShare)}, same-length opening ${n(f.openingShare)} (${f.summaryShare - f.openingShare >= 0 ? '+' : ''}${n(f.summaryShare - f.openingShare)} points; target ≥ +5)`,
    `empty outputs: ${f.emptyTitles} titles, ${f.emptySummaries} summaries; summaries with an emoji or a checklist mark: ${f.markedSummaries}`,
    `mean length: summary ${n(f.summaryWords)} words, title ${n(f.titleWords)} words`,
    `rename + summarize per conversation: p50 ${f.p50.toFixed(2)} ms, p95 ${f.p95.toFixed(2)} ms`,
  ].join('\n');
}
