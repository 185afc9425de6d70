/**
 * The properties the issue asks of titles and summaries, checked on the hand-written developer
 * conversations through the service (in memory, default embedded summarizer). Not exact strings:
 * the ROUGE figures against the references come from `npm run bench:quality -- --fixtures`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenize } from '../../bench/quality/rouge.js';
import { createService, type Service } from '../../src/index.js';
import { DEV_CONVERSATIONS, type DevConversation, type DevMessage } from '../fixtures/dev-conversations.js';

interface Output {
  readonly title: string;
  readonly summary: string;
}

async function nameAndSummarize(service: Service, c: DevConversation): Promise<Output> {
  const conversation = await service.createConversation({
    type: 'COPILOT',
    messages: c.messages.map((m) => ({ role: m.role, fragment: { string: { raw: m.text } } })),
  });
  const { name } = await service.renameConversation(conversation.id);
  const { annotation } = await service.summarizeConversation(conversation.id);
  const stored = await service.getConversation(conversation.id);
  const summary = stored.annotations.iterable.find((a) => a.id === annotation.id)?.reference?.text;
  return { title: name ?? '', summary: summary ?? '' };
}

async function runAll(): Promise<Map<string, Output>> {
  const service = await createService();
  const out = new Map<string, Output>();
  for (const c of DEV_CONVERSATIONS) out.set(c.id, await nameAndSummarize(service, c));
  await service.close();
  return out;
}

const FENCED = /```[^\n]*\n([\s\S]*?)(?:\n```|$)/g;

/** Every line of every fenced code block, trimmed; short lines (`}`, `end`) say nothing by themselves. */
function codeLines(messages: readonly DevMessage[]): string[] {
  return messages
    .flatMap((m) => [...m.text.matchAll(FENCED)].flatMap((match) => match[1]!.split('\n')))
    .map((line) => line.trim())
    .filter((line) => line.length >= 12);
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
/** Sentences of a summary: each starts after a full stop, question or exclamation mark. */
const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+(?=[A-Z#"])/).filter(Boolean);

// Words of reported speech and of the observer's frame, which say nothing about who said what.
const FRAME = new Set(
  tokenize(
    'the user assistant system asked ask whether how what why about suggested suggest explained explain said reported ' +
      'report noted recommended recommend confirmed replied wrote shared share also then that their they them it its ' +
      'and with for to of in on a an is are was were be not or by as this from instead code snippet example command ' +
      'commands block trace when which can should would could use using while over into after before only all each ' +
      'other some any more most such than there these those who will just very out again once here has have had does did',
  ),
);

const contentOf = (text: string): Set<string> => new Set(tokenize(text).filter((t) => t.length > 2 && !FRAME.has(t)));

/**
 * Who each summary sentence says spoke, against who did. A sentence's content words that occur in
 * only one side's messages (prose or code) point at that side; words both sides used say nothing.
 * A sentence opening with `The user` must point at the user's messages more than at the
 * assistant's, and the other way round. Sentences pointing at neither side more are not judged.
 * Answers the mismatches and how many sentences were judged.
 */
function roleMismatches(summary: string, messages: readonly DevMessage[]): { mismatches: string[]; judged: number } {
  const side = (role: 'USER' | 'ASSISTANT'): Set<string> =>
    contentOf(
      messages
        .filter((m) => m.role === role)
        .map((m) => m.text)
        .join('\n'),
    );
  const users = side('USER');
  const assistants = side('ASSISTANT');
  const mismatches: string[] = [];
  let judged = 0;
  for (const sentence of sentences(summary)) {
    const speaker = /^The (user|assistant)\b/.exec(sentence)?.[1];
    if (!speaker) continue;
    const said = [...contentOf(sentence.slice(speaker.length + 4))];
    const user = said.filter((t) => users.has(t) && !assistants.has(t)).length;
    const assistant = said.filter((t) => assistants.has(t) && !users.has(t)).length;
    if (user === assistant) continue;
    judged += 1;
    if ((user > assistant ? 'user' : 'assistant') !== speaker) mismatches.push(sentence);
  }
  return { mismatches, judged };
}

describe('developer fixtures through the service', () => {
  let outputs: Map<string, Output>;
  const of = (c: DevConversation): Output => outputs.get(c.id)!;

  beforeAll(async () => {
    outputs = await runAll();
  });

  it('has at least 30 conversations with references of the promised shape', () => {
    expect(DEV_CONVERSATIONS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(DEV_CONVERSATIONS.map((c) => c.id)).size).toBe(DEV_CONVERSATIONS.length);
    for (const c of DEV_CONVERSATIONS) {
      expect(words(c.title), c.id).toBeGreaterThanOrEqual(2);
      expect(words(c.title), c.id).toBeLessThanOrEqual(8);
      expect(c.summary, c.id).toMatch(/^The user /);
      expect(sentences(c.summary).length, c.id).toBeLessThanOrEqual(3);
    }
  });

  it('titles every conversation in 2–8 words, never empty, without final punctuation', () => {
    for (const c of DEV_CONVERSATIONS) {
      const { title } = of(c);
      expect(words(title), `${c.id}: ${title}`).toBeGreaterThanOrEqual(2);
      expect(words(title), `${c.id}: ${title}`).toBeLessThanOrEqual(8);
      expect(title.length, `${c.id}: ${title}`).toBeLessThanOrEqual(80);
      expect(title, c.id).not.toMatch(/[.,;:!?]$/);
    }
  });

  it('summarizes in observer form: speakers named by role, no first or second person', () => {
    for (const c of DEV_CONVERSATIONS) {
      const { summary } = of(c);
      expect(summary, c.id).toMatch(/^The (user|assistant) /);
      if (c.kind === 'non-english') continue; // Text in another language may be quoted as written.
      // Direct quotes (the user's own words, attributed) may say `I`.
      const unquoted = summary.replace(/"[^"]*"|“[^”]*”/g, '""');
      expect(unquoted, `${c.id}: ${summary}`).not.toMatch(/\bI\b|\b(me|my|mine|we|our|you|your)\b/i);
      for (const sentence of sentences(summary)) expect(sentence, `${c.id}: ${summary}`).toMatch(/^The (user|assistant)\b/);
    }
  });

  it('never quotes a line of code in a title or a summary', () => {
    let lines = 0;
    for (const c of DEV_CONVERSATIONS) {
      const { title, summary } = of(c);
      expect(summary, c.id).not.toContain('```');
      for (const line of codeLines(c.messages)) {
        lines += 1;
        expect(summary, `${c.id} quotes: ${line}`).not.toContain(line);
        expect(title, `${c.id} quotes: ${line}`).not.toContain(line);
      }
    }
    expect(lines).toBeGreaterThan(100);
  });

  it('attributes what was said to who said it', () => {
    let judged = 0;
    for (const c of DEV_CONVERSATIONS) {
      const check = roleMismatches(of(c).summary, c.messages);
      judged += check.judged;
      expect(check.mismatches, `${c.id}: ${of(c).summary}`).toEqual([]);
    }
    expect(judged).toBeGreaterThanOrEqual(DEV_CONVERSATIONS.length);
  });

  it('has a role check that catches swapped roles', () => {
    // The check suits summaries that report what each message said, as ours do; a person's
    // paraphrase may use the answer's words for the question, so references are not held to it.
    const swap = (text: string): string =>
      text.replace(/The (user|assistant)\b/g, (_, who: string) => `The ${who === 'user' ? 'assistant' : 'user'}`);
    const caught = DEV_CONVERSATIONS.filter((c) => roleMismatches(swap(of(c).summary), c.messages).mismatches.length > 0);
    expect(caught.length).toBeGreaterThanOrEqual(DEV_CONVERSATIONS.length * 0.75);
  });

  it('says someone asked only when that side asked something', () => {
    for (const c of DEV_CONVERSATIONS) {
      const { summary } = of(c);
      for (const role of ['USER', 'ASSISTANT'] as const) {
        const asked = c.messages.some((m) => m.role === role && /\?/.test(m.text.replace(FENCED, ' ')));
        const who = role === 'USER' ? 'user' : 'assistant';
        if (!asked)
          expect(summary, c.id).not.toMatch(new RegExp(`The ${who} (also |then )?asked (whether|if|how|what|why|when|where|which|who)\\b`));
      }
    }
  });

  it('keeps summaries to a few sentences and a bounded length', () => {
    for (const c of DEV_CONVERSATIONS) {
      const { summary } = of(c);
      expect(summary.length, c.id).toBeGreaterThanOrEqual(20);
      expect(summary.length, `${c.id}: ${summary}`).toBeLessThanOrEqual(600);
      expect(sentences(summary).length, `${c.id}: ${summary}`).toBeLessThanOrEqual(4);
    }
  });

  it('falls back sensibly for greetings, code alone and other languages', () => {
    for (const c of DEV_CONVERSATIONS.filter((x) => x.kind)) {
      const { title, summary } = of(c);
      if (c.kind === 'greeting') {
        expect(title).toMatch(/greeting|small talk|chat/i);
        expect(summary).toMatch(/greet/);
      }
      if (c.kind === 'code-only') expect(`${title} ${summary}`, c.id).toMatch(/Python|Java|stack trace|code/);
      if (c.kind === 'non-english') expect(title, c.id).toMatch(/[\p{L}]{3}/u);
    }
  });

  it('gives the same text for the same conversation', async () => {
    const again = await runAll();
    for (const c of DEV_CONVERSATIONS) expect(again.get(c.id), c.id).toEqual(of(c));
  });
});
