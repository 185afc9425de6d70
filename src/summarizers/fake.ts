import type { Summarizer, SummarizerMessage, SummarizerModelInfo } from '../ports.js';

/** One recorded call of a {@link FakeSummarizer}. */
export interface FakeSummarizerCall {
  readonly method: 'title' | 'summarize';
  /** A copy of the messages the call received. */
  readonly messages: readonly SummarizerMessage[];
}

/** A fixed answer, or a function of the messages (it may be async, and may throw to simulate failure). */
export type FakeAnswer = string | ((messages: readonly SummarizerMessage[]) => string | Promise<string>);

/** Options of {@link createFakeSummarizer}. */
export interface FakeSummarizerOptions {
  /** What `title()` answers. Default: the first five words of the first message with text. */
  readonly title?: FakeAnswer;
  /** What `summarize()` answers. Default: `Summary of N messages.` */
  readonly summary?: FakeAnswer;
  /** Overrides fields of the model record (default id `fake-summarizer`). */
  readonly model?: Partial<SummarizerModelInfo>;
}

/** A {@link Summarizer} that records its calls, for tests. */
export interface FakeSummarizer extends Summarizer {
  /** Every `title()` and `summarize()` call, oldest first. */
  readonly calls: FakeSummarizerCall[];
}

/**
 * A recording fake of the `Summarizer` port for tests of code that uses the service: answers are
 * instant and predictable, and `calls` shows what the service asked for. Like the real one, it
 * reports `isLoaded()` true after its first call and false again after `unload()`.
 *
 * @example
 * const summarizer = createFakeSummarizer({ title: 'Fixed title' });
 * const service = createConversationService({ summarizer });
 * // … then assert on summarizer.calls
 */
export function createFakeSummarizer(options: FakeSummarizerOptions = {}): FakeSummarizer {
  const calls: FakeSummarizerCall[] = [];
  let loaded = false;

  const answer = async (
    method: FakeSummarizerCall['method'],
    messages: readonly SummarizerMessage[],
    chosen: FakeAnswer,
  ): Promise<string> => {
    const copy = messages.map((m) => ({ ...m }));
    calls.push({ method, messages: copy });
    loaded = true;
    return typeof chosen === 'string' ? chosen : chosen(copy);
  };

  return {
    calls,
    model: Object.freeze({
      id: 'fake-summarizer',
      name: 'Fake summarizer',
      version: '1.0.0',
      description: 'Recording fake for tests: fixed or scripted titles and summaries.',
      usage: 'CODE_DESCRIPTION',
      type: 'SPEED',
      cloud: false,
      ...options.model,
    }),
    title: (messages) => answer('title', messages, options.title ?? defaultTitle),
    summarize: (messages) => answer('summarize', messages, options.summary ?? ((m) => `Summary of ${m.length} messages.`)),
    isLoaded: () => loaded,
    async unload() {
      loaded = false;
    },
  };
}

function defaultTitle(messages: readonly SummarizerMessage[]): string {
  const first = messages.find((m) => m.text.trim() !== '');
  return first ? first.text.trim().split(/\s+/).slice(0, 5).join(' ') : '';
}
