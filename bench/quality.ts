/**
 * `npm run bench:quality -- --file <dialogues.jsonl>`: how close the embedded summarizer's titles
 * and summaries come to human references, through the service's own rename and summarize.
 *
 *   --file <path>     dialogues in the DialogSum format (JSONL; see bench/quality/dialogsum.ts for
 *                     how turns become messages). The data is read from the path, never copied.
 *                     A path that is not there skips this part, saying so (so does --devchats's).
 *   --devchats <path> developer chats with coding assistants (JSONL; see bench/quality/devchats.ts):
 *                     title ROUGE-1/L against the tools' own titles beside the "first 8 words of the
 *                     first user message" baseline, the summaries' topic share beside the same-length
 *                     opening's, empty outputs and latency. Read from the path, never copied.
 *   --fixtures        the developer conversations of test/fixtures/dev-conversations.ts, against
 *                     their hand-written reference titles and summaries.
 *   --offset N        skip the first N dialogues of the file (e.g. 250 for the held-out half).
 *   --limit N         use at most N dialogues of the file.
 *   --speakers MODE   DialogSum only. `persons` (default): the summarizer names the speakers as the
 *                     dataset does (`#Person1#`, `#Person2#`), through its `speakers` option, as a
 *                     deployment would name real participants; `roles`: the defaults (`The user`,
 *                     `The assistant`).
 *   --show N          print the first N titles and summaries next to their references.
 *   --json            print the figures as JSON instead of tables.
 *
 * Printed: ROUGE-1/2/L F1 (mean over conversations, × 100, `rouge_score` convention with Porter
 * stemming) of our summaries and of LEAD-3 (the first three turns, speaker tags left out; for the
 * fixtures, the first three messages without their code blocks) in the same run, their ROUGE-1
 * ratio (for DialogSum also against LEAD-3 with the speaker tags kept, since our summaries name the
 * speakers as the references do), title ROUGE-1 against the references (DialogSum: `topic`), empty outputs, and p50/p95 ms
 * per conversation for rename + summarize after a warm-up.
 */
import { parseArgs } from 'node:util';
import { createExtractiveSummarizer } from '../src/summarizers/index.js';
import { DEV_CONVERSATIONS } from '../test/fixtures/dev-conversations.js';
import { devChats, dialogSum, skippedForData } from './outside-data.js';
import { devChatFigures, formatDevChatFigures, readDevChats } from './quality/devchats.js';
import { type Dialogue, lead3, readDialogues } from './quality/dialogsum.js';
import { type Case, type CaseResult, evaluate, figures, formatFigures } from './quality/evaluate.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    devchats: { type: 'string' },
    fixtures: { type: 'boolean', default: false },
    offset: { type: 'string', default: '0' },
    limit: { type: 'string' },
    speakers: { type: 'string', default: 'persons' },
    show: { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});

if (!values.file && !values.fixtures && !values.devchats) {
  console.error(
    'usage: npm run bench:quality -- [--devchats <chats.jsonl>] [--file <dialogues.jsonl> [--offset N] [--limit N] [--speakers persons|roles]] [--fixtures]',
  );
  process.exit(2);
}
if (values.speakers !== 'persons' && values.speakers !== 'roles') {
  console.error('--speakers is persons or roles');
  process.exit(2);
}

const show = Number(values.show);
const report: Record<string, unknown> = {};

function print(label: string, cases: readonly Case[], results: readonly CaseResult[]): void {
  const f = figures(results);
  report[label] = f;
  if (values.json) return;
  console.log(`${formatFigures(label, f)}\n`);
  results.slice(0, show).forEach((r, i) => {
    console.log(
      `- ${r.id}\n  title:     ${r.title}\n  reference: ${cases[i]!.title}\n  summary:   ${r.summary}\n  reference: ${cases[i]!.summary}`,
    );
  });
  if (show > 0) console.log('');
}

// A file that is not there: that part is skipped, saying what to provide; the others run.
const devchatsData = values.devchats && {
  ...devChats({ SEARCH_DEVCHATS: values.devchats }),
  override: '--devchats <chats.jsonl> (JSONL, in the format bench/quality/devchats.ts reads)',
};
const devchatsSkipped = devchatsData ? skippedForData('--devchats', devchatsData) : undefined;
const fileSkipped = values.file ? skippedForData('--file', dialogSum(values.file)) : undefined;
for (const line of [devchatsSkipped, fileSkipped]) if (line) console.error(line);

if (values.devchats && !devchatsSkipped) {
  const chats = await readDevChats(values.devchats);
  const cases: Case[] = chats.map((c) => ({ id: c.id, messages: c.messages, summary: c.title, title: c.title, lead3: '' }));
  const results = await evaluate(cases, createExtractiveSummarizer());
  const f = devChatFigures(
    chats,
    results.map((r, i) => ({ id: r.id, reference: chats[i]!.title, title: r.title, summary: r.summary, ms: r.ms })),
  );
  report[values.devchats] = f;
  if (!values.json) {
    console.log(`${formatDevChatFigures(values.devchats, f)}\n`);
    results.slice(0, show).forEach((r, i) => {
      console.log(`- ${r.id}\n  title:     ${r.title}\n  reference: ${chats[i]!.title}\n  summary:   ${r.summary}`);
    });
    if (show > 0) console.log('');
  }
}

if (values.file && !fileSkipped) {
  const offset = Number(values.offset);
  const all = await readDialogues(values.file);
  const chosen = all.slice(offset, values.limit === undefined ? undefined : offset + Number(values.limit));
  const cases = chosen.map(dialogueCase);
  const speakers = values.speakers === 'persons' ? { USER: '#Person1#', ASSISTANT: '#Person2#' } : {};
  const results = await evaluate(cases, createExtractiveSummarizer({ speakers }));
  const first = offset + 1;
  print(`${values.file} [${first}–${offset + chosen.length}], speakers: ${values.speakers}`, cases, results);
}

if (values.fixtures) {
  const cases: Case[] = DEV_CONVERSATIONS.map((c) => ({
    id: c.id,
    messages: c.messages,
    summary: c.summary,
    title: c.title,
    lead3: c.messages
      .slice(0, 3)
      .map((m) => m.text.replace(/```[\s\S]*?(```|$)/g, ' '))
      .join(' '),
  }));
  print('developer fixtures', cases, await evaluate(cases, createExtractiveSummarizer(), 5));
}

if (values.json) console.log(JSON.stringify(report, null, 2));

function dialogueCase(d: Dialogue): Case {
  const messages = d.turns.map((t) => ({ role: t.role, text: t.text }));
  return { id: d.id, messages, summary: d.summary, title: d.topic, lead3: lead3(d.turns), lead3Named: lead3(d.turns, true) };
}
