/**
 * Feeds conversations through the service's own `renameConversation` and `summarizeConversation`
 * (an in-memory service with the given summarizer), reads the stored name and SUMMARY annotation
 * back, and scores them with ROUGE against hand-written references, next to a LEAD-3 baseline.
 */
import { performance } from 'node:perf_hooks';
import { createService, isServiceError, type Summarizer } from '../../src/index.js';
import type { MessageRole } from '../../src/records.js';
import { mean, outputFigures } from '../stats.js';
import { type RougeScores, rouge } from './rouge.js';

export interface Case {
  readonly id: string;
  readonly messages: readonly { readonly role: MessageRole; readonly text: string }[];
  /** Reference summary. */
  readonly summary: string;
  /** Reference title (DialogSum: the topic). */
  readonly title: string;
  /** The LEAD-3 baseline's text for this case. */
  readonly lead3: string;
  /** LEAD-3 with the speaker names kept (`#Person1#: …`), when the references name speakers that way. */
  readonly lead3Named?: string;
}

export interface CaseResult {
  readonly id: string;
  readonly title: string;
  readonly summary: string;
  readonly ours: RougeScores;
  readonly lead3: RougeScores;
  readonly lead3Named?: RougeScores;
  readonly titleRouge1: number;
  /** Milliseconds for rename + summarize, measured after the warm-up. */
  readonly ms: number;
}

export interface Figures {
  readonly count: number;
  /** Mean F1 × 100 over cases. */
  readonly ours: { r1: number; r2: number; rl: number };
  readonly lead3: { r1: number; r2: number; rl: number };
  readonly lead3Named?: { r1: number; r2: number; rl: number };
  /** ours R1 / LEAD-3 R1. */
  readonly ratio: number;
  readonly titleR1: number;
  readonly emptyTitles: number;
  readonly emptySummaries: number;
  readonly p50: number;
  readonly p95: number;
  /** Mean words per summary and per title. */
  readonly summaryWords: number;
  readonly titleWords: number;
}

/** Runs every case through a fresh in-memory service; the first `warmup` cases run once untimed first. */
export async function evaluate(cases: readonly Case[], summarizer: Summarizer, warmup = 25): Promise<CaseResult[]> {
  const service = await createService({ summarizer });
  const runOne = async (c: Case): Promise<{ title: string; summary: string; ms: number }> => {
    const conversation = await service.createConversation({
      type: 'COPILOT',
      messages: c.messages.map((m) => ({ role: m.role, fragment: { string: { raw: m.text } } })),
    });
    const start = performance.now();
    const title = await orEmpty(async () => (await service.renameConversation(conversation.id, { transferables: false })).name ?? '');
    const annotationId = await orEmpty(async () => (await service.summarizeConversation(conversation.id)).annotation.id);
    const ms = performance.now() - start;
    const stored = await service.getConversation(conversation.id);
    const summary = stored.annotations?.iterable.find((a) => a.id === annotationId)?.reference?.text ?? '';
    await service.deleteConversation(conversation.id);
    return { title: stored.name ?? title, summary, ms };
  };
  for (const c of cases.slice(0, warmup)) await runOne(c);
  const results: CaseResult[] = [];
  for (const c of cases) {
    const { title, summary, ms } = await runOne(c);
    results.push({
      id: c.id,
      title,
      summary,
      ours: rouge(c.summary, summary),
      lead3: rouge(c.summary, c.lead3),
      ...(c.lead3Named === undefined ? {} : { lead3Named: rouge(c.summary, c.lead3Named) }),
      titleRouge1: rouge(c.title, title).rouge1.f1,
      ms,
    });
  }
  await service.close();
  return results;
}

/** A service call that may refuse a conversation with nothing to say: that counts as empty output. */
async function orEmpty(call: () => Promise<string>): Promise<string> {
  try {
    return await call();
  } catch (error) {
    if (isServiceError(error) && error.code === 'UNPROCESSABLE') return '';
    throw error;
  }
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export function figures(results: readonly CaseResult[]): Figures {
  const of = (pick: (r: CaseResult) => RougeScores) => ({
    r1: 100 * mean(results.map((r) => pick(r).rouge1.f1)),
    r2: 100 * mean(results.map((r) => pick(r).rouge2.f1)),
    rl: 100 * mean(results.map((r) => pick(r).rougeL.f1)),
  });
  const ours = of((r) => r.ours);
  const lead3 = of((r) => r.lead3);
  const named = results.every((r) => r.lead3Named) ? of((r) => r.lead3Named!) : undefined;
  return {
    count: results.length,
    ours,
    lead3,
    ...(named ? { lead3Named: named } : {}),
    ratio: lead3.r1 > 0 ? ours.r1 / lead3.r1 : NaN,
    titleR1: 100 * mean(results.map((r) => r.titleRouge1)),
    ...outputFigures(results),
    summaryWords: mean(results.map((r) => words(r.summary))),
    titleWords: mean(results.map((r) => words(r.title))),
  };
}

/** The figures as a small Markdown table. */
export function formatFigures(label: string, f: Figures): string {
  const n = (x: number): string => x.toFixed(1);
  return [
    `${label} (${f.count} conversations)`,
    '',
    '| | ROUGE-1 | ROUGE-2 | ROUGE-L |',
    '|---|---:|---:|---:|',
    `| ours | ${n(f.ours.r1)} | ${n(f.ours.r2)} | ${n(f.ours.rl)} |`,
    `| LEAD-3 | ${n(f.lead3.r1)} | ${n(f.lead3.r2)} | ${n(f.lead3.rl)} |`,
    ...(f.lead3Named ? [`| LEAD-3, speaker names kept | ${n(f.lead3Named.r1)} | ${n(f.lead3Named.r2)} | ${n(f.lead3Named.rl)} |`] : []),
    '',
    `ours / LEAD-3 (ROUGE-1): ${f.ratio.toFixed(3)}×` +
      (f.lead3Named ? `; ours / LEAD-3 with speaker names: ${(f.ours.r1 / f.lead3Named.r1).toFixed(3)}×` : ''),
    `title ROUGE-1 vs reference titles: ${n(f.titleR1)}`,
    `empty outputs: ${f.emptyTitles} titles, ${f.emptySummaries} summaries`,
    `mean length: summary ${n(f.summaryWords)} words, title ${n(f.titleWords)} words`,
    `rename + summarize per conversation: p50 ${f.p50.toFixed(2)} ms, p95 ${f.p95.toFixed(2)} ms`,
  ].join('\n');
}
