/**
 * The chat note's stages one at a time (src/summarizers/chat-note.ts): what was asked, the topic,
 * the outcome, what is open, and the rendering, each on a conversation made for it.
 */
import { describe, expect, it } from 'vitest';
import type { SummarizerMessage } from '../../src/ports.js';
import { askedOf, openOf, outcomeOf, renderNote, topicOf } from '../../src/summarizers/chat-note.js';
import { analyzeConversation } from '../../src/summarizers/conversation.js';
import { createNlpHolder } from '../../src/summarizers/nlp.js';

const nlp = await createNlpHolder().get();
const read = (...turns: [SummarizerMessage['role'], string][]) =>
  analyzeConversation(
    nlp,
    turns.map(([role, text], i) => ({ id: `m${i + 1}`, role, text })),
  );
const answer = (...sentences: string[]) => sentences.join('\n\n');
const speakers = { USER: 'The user', ASSISTANT: 'The assistant', SYSTEM: 'The system', UNKNOWN: 'A participant' };

describe('stage 1, askedOf: what was asked', () => {
  it("names the activity in the assistant's own words and quotes the request where it says more", () => {
    const conversation = read(
      ['USER', '@rules/ add to cursor rules: comments in Arabic'],
      ['ASSISTANT', answer("I'll help you add a rule about Arabic code comments.", 'The rule was added to the rules file.')],
    );
    expect(askedOf(conversation, 'Adding rule about Arabic code comments')).toEqual({
      kind: 'activity',
      activity: 'adding a rule about Arabic code comments',
      quote: '“@rules/ add to cursor rules: comments in Arabic”',
    });
  });

  it("names the activity in the request's own words, articles kept, when the title is made from the request", () => {
    const conversation = read(
      ['USER', 'add this favicon to the project please'],
      ['ASSISTANT', answer('The favicon is now linked from the layout.', 'Browsers show it in the tab.')],
    );
    // The request says nothing the activity does not (`add` is in `adding`): it is not quoted again.
    expect(askedOf(conversation, 'Adding favicon to project')).toEqual({
      kind: 'activity',
      activity: 'adding this favicon to the project',
    });
  });

  it("quotes a request that is not an activity in the user's words, noting whether it is a question", () => {
    const conversation = read(
      ['USER', 'I am getting ECONNREFUSED when the API container starts.'],
      ['ASSISTANT', 'The API starts before Postgres.'],
    );
    expect(askedOf(conversation, 'API container')).toEqual({
      kind: 'quote',
      quote: '“I am getting ECONNREFUSED when the API container starts”',
      question: false,
    });
    const question = read(['USER', 'Why does the pod keep restarting?'], ['ASSISTANT', 'The liveness probe fails.']);
    expect(askedOf(question, 'Pod keeps restarting')).toMatchObject({ kind: 'quote', question: true });
  });

  it('quotes the labelled task of a long prompt, not its opening context', () => {
    const conversation = read(
      [
        'USER',
        'You are working in the PaperBites monorepo (Next.js app in apps/web).\n\nGoal: expand the Saved page into a real research library.\n\nScope: liked papers first.',
      ],
      ['ASSISTANT', 'The Saved page now lists liked papers and reading history.'],
    );
    expect(askedOf(conversation, 'PaperBites monorepo')).toMatchObject({
      kind: 'quote',
      quote: '“expand the Saved page into a real research library”',
    });
  });
});

describe('stage 2, topicOf: what the chat is about', () => {
  it("holds the title's words and the requests' first terms, not the answers'", () => {
    const topic = topicOf(
      read(['USER', 'Fix the flaky payment retry.'], ['ASSISTANT', 'The backoff was too short.']),
      'Fixing payment retry',
    );
    expect(topic.has('fixing')).toBe(true);
    expect(topic.has('payment')).toBe(true);
    expect(topic.has('backoff')).toBe(false);
  });
});

describe('stage 3, outcomeOf: what was found, done or decided', () => {
  it('quotes the outcome sentence on the topic and skips narration, checklists and tool prompts', () => {
    const conversation = read(
      ['USER', 'The build keeps failing on CI, fix it.'],
      [
        'ASSISTANT',
        answer(
          'Let me check the workflow file first.',
          '- ✅ Updated the workflow file with the cache step.',
          'The build was failing because the lockfile was out of date on the branch.',
          'Continue to iterate?',
        ),
      ],
    );
    expect(outcomeOf(conversation, topicOf(conversation, 'Fixing build on CI'))).toBe(
      '“The build was failing because the lockfile was out of date on the branch”',
    );
  });

  it('finds none when no sentence reports anything on the topic', () => {
    const conversation = read(['USER', 'Rename the module.'], ['ASSISTANT', 'Let me look at it.']);
    expect(outcomeOf(conversation, topicOf(conversation, 'Renaming module'))).toBeUndefined();
  });
});

describe('stage 4, openOf: what is still open', () => {
  it('quotes a last request nobody answered, but not a bare "continue" or "thanks"', () => {
    const open = read(
      ['USER', 'Add a favicon.'],
      ['ASSISTANT', 'The favicon was added to the page.'],
      ['USER', 'Also add a manifest file?'],
    );
    expect(openOf(open)).toBe('“Also add a manifest file?”');
    const done = read(['USER', 'Add a favicon.'], ['ASSISTANT', 'The favicon was added to the page.'], ['USER', 'thanks']);
    expect(openOf(done)).toBeUndefined();
  });
});

describe('stage 5, renderNote: the note as sentences', () => {
  const note = {
    asked: { kind: 'activity', activity: 'installing Playwright', quote: '“Install Playwright”' },
    outcome: '“Playwright is now installed”',
    open: '“Re-run the workflow?”',
  } as const;

  it('writes request, outcome and what is open, in that order', () => {
    expect(renderNote(note, speakers, { maxSentences: 3, maxLength: 600 })).toBe(
      'The user asked for help with installing Playwright (“Install Playwright”). The assistant reported: “Playwright is now installed”. ' +
        'The user then asked: “Re-run the workflow?”, still unanswered.',
    );
  });

  it('drops later parts first to keep within the limits', () => {
    expect(renderNote(note, speakers, { maxSentences: 1, maxLength: 600 })).toBe(
      'The user asked for help with installing Playwright (“Install Playwright”).',
    );
    expect(renderNote(note, speakers, { maxSentences: 3, maxLength: 140 })).toBe(
      'The user asked for help with installing Playwright (“Install Playwright”). The assistant reported: “Playwright is now installed”.',
    );
  });
});
