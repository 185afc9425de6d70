import type { Summarizer, SummarizerMessage, SummarizerModelInfo } from '../ports.js';
import { analyzeConversation, type Conversation, type Role } from './conversation.js';
import { createNlpHolder } from './nlp.js';
import { ASSISTANT_TOOL, writeSummary } from './summary.js';
import { writeTitle } from './title.js';

/** Version of the extraction rules; bump it when titles or summaries change for the same input. */
export const EXTRACTIVE_SUMMARIZER_VERSION = '1.4.0';

/** Options of {@link createExtractiveSummarizer}. Every option has a sensible default. */
export interface ExtractiveSummarizerOptions {
  /** Longest title, in words (default 8, at least 2). */
  readonly maxTitleWords?: number;
  /** Most sentences in a summary, notes about code included (default 3). */
  readonly maxSummarySentences?: number;
  /** Most characters in a summary (default 600). */
  readonly maxSummaryLength?: number;
  /**
   * How summaries name each role (defaults: `The user`, `The assistant`, `The system`,
   * `A participant`). Useful for dialogues whose speakers are people, e.g. `{ USER: '#Person1#' }`.
   * Left to the defaults, a conversation between people (not a chat with a coding assistant) names
   * someone who says their name by it (`Hello, this is Susan speaking` → `Susan asked …`).
   */
  readonly speakers?: Partial<Readonly<Record<Role, string>>>;
  /** Overrides fields of the model record the summarizer stands for. */
  readonly model?: Partial<SummarizerModelInfo>;
}

/** Characters of a conversation the summarizer reads (see fitMessages: what is kept of a longer one). */
const MAX_INPUT_CHARS = 12_000;

const DEFAULT_SPEAKERS: Readonly<Record<Role, string>> = {
  USER: 'The user',
  ASSISTANT: 'The assistant',
  SYSTEM: 'The system',
  UNKNOWN: 'A participant',
};

const MODEL: SummarizerModelInfo = {
  id: 'extractive-summarizer',
  name: 'Embedded extractive summarizer',
  version: EXTRACTIVE_SUMMARIZER_VERSION,
  description:
    'Offline titles and summaries picked from the conversation itself with wink-nlp (English). ' +
    'No download, no server; code blocks are described by language, never quoted.',
  usage: 'CODE_DESCRIPTION',
  type: 'SPEED',
  cloud: false,
};

/**
 * The library's embedded summarizer. It runs offline on `wink-nlp` and its small English model
 * (shipped in the npm package): titles come from the first user request (`Retrying a flaky
 * payment API call in TypeScript`), summaries are an observer's few sentences picked from the
 * conversation (`The user asked how to … The assistant suggested …`). Output is deterministic.
 *
 * The pipeline: `read` (conversation.ts) → `title` (title.ts, echo.ts) → for a chat with a coding
 * assistant, the note's stages (chat-note.ts, rules in chat-rules.ts), else the sentence-level
 * observer summary (summary.ts).
 *
 * The NLP model is loaded on the first `title()` or `summarize()` call, not on import or creation;
 * `unload()` drops it and the next call loads it again. Messages without letters or digits never
 * load it: they get ''. Only the first 20,000 characters of each message are read.
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const holder = createNlpHolder();
  const summaryOptions = {
    maxSentences: Math.max(1, Math.floor(options.maxSummarySentences ?? 3)),
    maxLength: Math.max(40, Math.floor(options.maxSummaryLength ?? 600)),
    speakers: { ...DEFAULT_SPEAKERS, ...options.speakers },
    nameParticipants: options.speakers?.USER === undefined && options.speakers?.ASSISTANT === undefined,
  };
  const titleOptions = {
    maxWords: Math.max(2, Math.floor(options.maxTitleWords ?? 8)),
    // The coding-assistant rules are off when the assistant role is a person (`#Person2#`).
    assistantChats: ASSISTANT_TOOL.test(summaryOptions.speakers.ASSISTANT),
  };

  // The last conversation read: a service names and summarizes the same messages one after the
  // other, and reading is most of the cost.
  let last: { key: string; conversation: Conversation } | undefined;

  async function read(messages: readonly SummarizerMessage[]): Promise<Conversation | undefined> {
    // No text, no model load: an empty conversation is answered without touching wink.
    if (!messages.some((m) => typeof m.text === 'string' && /[\p{L}\p{N}]/u.test(m.text))) return undefined;
    const nlp = await holder.get();
    const key = messages.map((m) => `${m.role}\u0000${typeof m.text === 'string' ? m.text : ''}`).join('\u0001');
    if (last?.key === key) return last.conversation;
    const conversation = analyzeConversation(nlp, messages);
    last = { key, conversation };
    return conversation;
  }

  return {
    model: Object.freeze({ ...MODEL, ...options.model }),
    // Reading costs about 2 ms per 1,000 characters on the event loop: this keeps a title or a
    // summary of any conversation to a few tens of milliseconds.
    maxInputChars: MAX_INPUT_CHARS,
    async title(messages) {
      const conversation = await read(messages);
      return conversation ? writeTitle(conversation, titleOptions) : '';
    },
    async summarize(messages) {
      const conversation = await read(messages);
      return conversation ? writeSummary(conversation, summaryOptions) : '';
    },
    isLoaded: () => holder.isLoaded(),
    async load() {
      await holder.get();
    },
    async unload() {
      last = undefined;
      holder.unload();
    },
  };
}
