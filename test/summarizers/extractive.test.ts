import { describe, expect, it } from 'vitest';
import type { SummarizerMessage } from '../../src/ports.js';
import { createExtractiveSummarizer } from '../../src/summarizers/extractive.js';

type Role = SummarizerMessage['role'];

function chat(...turns: Array<[Role, string]>): SummarizerMessage[] {
  return turns.map(([role, text], i) => ({ id: `m${i + 1}`, role, text }));
}

const retryHelper = [
  '```ts',
  'async function withRetry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {',
  '  for (let i = 0; ; i++) {',
  '    try { return await fn(); } catch (error) {',
  '      if (i >= attempts - 1) throw error;',
  '      await new Promise((r) => setTimeout(r, 2 ** i * 100 + Math.random() * 100));',
  '    }',
  '  }',
  '}',
  '```',
].join('\n');

const retry = chat(
  ['USER', 'How do I retry a flaky payment API call in TypeScript? It fails about 5% of the time with a 503.'],
  [
    'ASSISTANT',
    'Use exponential backoff with jitter and cap the number of attempts. A 503 usually means the service is ' +
      "temporarily overloaded, so retrying immediately makes things worse. Here's a small helper:\n\n" +
      retryHelper +
      '\n\nMake sure the payment request is idempotent, for example by sending an idempotency key, so a retried charge is not applied twice.',
  ],
  ['USER', 'Should I also retry on 500 errors?'],
  [
    'ASSISTANT',
    'Only if the endpoint is idempotent. A 500 can mean the charge went through before the error, so retry 500s only with an idempotency key.',
  ],
  ['USER', 'Thanks, that helps!'],
);

const reactLoop = chat(
  [
    'USER',
    "Hey! My React component re-renders forever. Here's the code:\n\n```jsx\nuseEffect(() => {\n  setOptions({ ...options, page });\n}, [options, page]);\n```\n\nWhy is this happening?",
  ],
  [
    'ASSISTANT',
    'The effect depends on `options` and also updates `options`, so every render creates a new object and triggers the effect again. ' +
      'Use the functional form of the state setter instead:\n\n```jsx\nuseEffect(() => {\n  setOptions((prev) => ({ ...prev, page }));\n}, [page]);\n```',
  ],
  ['USER', 'That fixed it, thank you!'],
  ['ASSISTANT', "You're welcome! Let me know if you run into anything else."],
);

const dockerNetworking = chat(
  [
    'USER',
    "I'm getting ECONNREFUSED when my API container connects to Postgres in docker compose. It works when I run the API on my laptop.",
  ],
  [
    'ASSISTANT',
    'Inside a container, localhost refers to the container itself, not your machine. Use the service name from your compose file as the host, and make sure the API waits until the database is healthy.',
  ],
  ['USER', 'How do I make it wait for the database?'],
  ['ASSISTANT', 'Add a healthcheck to the postgres service and set depends_on with condition: service_healthy on the API service.'],
);

const indentedCode = chat(
  ['USER', 'Why does this throw?\n\n    const user = null;\n    console.log(user.name);\n\nI expected undefined.'],
  ['ASSISTANT', 'Reading a property of null throws a TypeError. Use optional chaining, user?.name, to get undefined instead.'],
);

const conversations = { retry, reactLoop, dockerNetworking, indentedCode };

/** Every line of every code block in the conversation, for "never quoted" checks. */
function codeLines(messages: readonly SummarizerMessage[]): string[] {
  const lines: string[] = [];
  for (const { text } of messages) {
    for (const block of text.match(/```[\s\S]*?```/g) ?? []) lines.push(...block.split('\n').slice(1, -1));
    for (const line of text.split('\n')) if (/^ {4}\S/.test(line)) lines.push(line);
  }
  return lines.map((l) => l.trim()).filter((l) => l.length >= 8);
}

function words(title: string): number {
  return title.split(/\s+/).filter(Boolean).length;
}

describe('createExtractiveSummarizer: titles', () => {
  const summarizer = createExtractiveSummarizer();

  it('turns the first request into a short title that reads as a title', async () => {
    expect(await summarizer.title(retry)).toBe('Retrying a flaky payment API call in TypeScript');
    expect(await summarizer.title(dockerNetworking)).toMatch(/^ECONNREFUSED when .*Postgres/);
    expect(await summarizer.title(chat(['USER', "What's the difference between interface and type in TypeScript?"]))).toBe(
      'Difference between interface and type in TypeScript',
    );
    expect(await summarizer.title(chat(['USER', 'Hey, I want to migrate our webpack config to Vite.']))).toBe(
      'Migrating the webpack config to Vite',
    );
  });

  it('titles a task by what is to be done, not by what is made to do it', async () => {
    const title = await summarizer.title(
      chat(
        ['USER', 'How do I make my TypeScript service retry a flaky payment API?'],
        ['ASSISTANT', 'Use exponential backoff with full jitter.'],
      ),
    );
    expect(title).toBe('Retrying a flaky payment API');
    // A generic `you` asks how one does it.
    expect(await summarizer.title(chat(['USER', 'How do you stop a Docker container gracefully?']))).toBe(
      'Stopping a Docker container gracefully',
    );
  });

  it('keeps every title between 2 and 8 words, without trailing punctuation or code', async () => {
    const extra = [
      chat(['USER', 'Write a Python function that parses CSV files into dictionaries keyed by the header row, skipping empty lines.']),
      chat(['USER', 'Why does my Jest test time out?']),
      chat(['USER', 'Can you help me fix this React useEffect infinite loop?']),
    ];
    for (const messages of [...Object.values(conversations), ...extra]) {
      const title = await summarizer.title(messages);
      expect(words(title), title).toBeGreaterThanOrEqual(2);
      expect(words(title), title).toBeLessThanOrEqual(8);
      expect(title).not.toMatch(/[.,;:!?]$/);
      expect(title).not.toMatch(/[`{};=]|=>/);
      for (const line of codeLines(messages)) expect(title).not.toContain(line);
    }
  });

  it('respects maxTitleWords', async () => {
    const short = createExtractiveSummarizer({ maxTitleWords: 4 });
    const title = await short.title(retry);
    expect(words(title)).toBeLessThanOrEqual(4);
    expect(words(title)).toBeGreaterThanOrEqual(2);
  });

  it('names a code-only conversation after the language of the code', async () => {
    const python = chat(['USER', '```python\nimport pandas as pd\ndf = pd.read_csv("data.csv")\nprint(df.head())\n```']);
    expect(await summarizer.title(python)).toBe('Python code snippet');
    const unlabelled = chat(['USER', '```\nconst total = items.reduce((sum, item) => sum + item.price, 0);\n```']);
    expect(await summarizer.title(unlabelled)).toBe('JavaScript code snippet');
  });

  it('describes a vague question about pasted code by the code', async () => {
    expect(await summarizer.title(indentedCode)).toBe('JavaScript code throwing');
    expect(await summarizer.title(reactLoop)).toBe('React component re-renders forever');
  });

  it('names a chat of short turns after what it keeps coming back to', async () => {
    const chatAboutBikes = chat(
      ['USER', 'Did you see my message from last night?'],
      ['ASSISTANT', 'No, sorry. What was it about?'],
      ['USER', 'I want to sell my old bike before the move.'],
      ['ASSISTANT', 'Which bike, the red road bike?'],
      ['USER', 'Yes. The bike is in good shape, but I have no room for it.'],
      ['ASSISTANT', 'My brother is looking for a road bike. I can ask him.'],
    );
    const title = await summarizer.title(chatAboutBikes);
    expect(title).toMatch(/bike/i);
    expect(words(title)).toBeGreaterThanOrEqual(2);
    expect(words(title)).toBeLessThanOrEqual(8);
    // A request answered at length keeps its own title, as the tests above show.
    expect(await summarizer.title(retry)).toBe('Retrying a flaky payment API call in TypeScript');
  });

  it('falls back to a greeting title for small talk', async () => {
    expect(await summarizer.title(chat(['USER', 'hi'], ['ASSISTANT', 'Hello! How can I help you today?']))).toBe('Short greeting');
    expect(await summarizer.title(chat(['USER', 'Thanks!'], ['ASSISTANT', "You're welcome!"]))).toBe('Short chat');
  });

  it('quotes the first words of text that is not English', async () => {
    const spanish = chat(['USER', '¿Cómo puedo configurar el servidor de producción con Docker?']);
    expect(await summarizer.title(spanish)).toBe('Cómo puedo configurar el servidor de');
    const japanese = chat(['USER', 'サーバーの設定方法を教えてください']);
    expect(await summarizer.title(japanese)).toBe('サーバーの設定方法を教えてください');
  });
});

describe('createExtractiveSummarizer: summaries', () => {
  const summarizer = createExtractiveSummarizer();

  it('reads like an observer: the user asked, the assistant answered', async () => {
    const summary = await summarizer.summarize(retry);
    expect(summary).toMatch(/^The user asked how to retry a flaky payment API call in TypeScript\. /);
    expect(summary).toContain('The assistant suggested using exponential backoff with jitter');
    expect(summary).toContain('a TypeScript code example');
  });

  it('reports problems and moves pronouns to the third person', async () => {
    const summary = await summarizer.summarize(dockerNetworking);
    expect(summary).toMatch(/^The user reported getting ECONNREFUSED when their API container connects to Postgres/);
    expect(summary).toMatch(/The assistant (explained|suggested)/);
    expect(summary).not.toMatch(/\b(I|my|your)\b/);
  });

  it('reports questions in statement order and keeps a list of advice in one verb form', async () => {
    const summary = await summarizer.summarize(
      chat(
        ['USER', 'How do I make my TypeScript service retry a flaky payment API?'],
        [
          'ASSISTANT',
          'Use exponential backoff with full jitter, retry only idempotent requests, and send one idempotency key per payment.',
        ],
        ['USER', 'Should the idempotency key be a UUID?'],
      ),
    );
    expect(summary).toContain(
      'suggested using exponential backoff with full jitter, retrying only idempotent requests, and sending one idempotency key per payment',
    );
    expect(summary).toContain('asked whether the idempotency key should be a UUID');
    expect(await summarizer.summarize(chat(['USER', 'How many retries should I allow before giving up?']))).toMatch(
      /^The user asked how many retries they should allow/,
    );
    // A generic `you` asks how one does it.
    expect(await summarizer.summarize(chat(['USER', 'How do you stop a Docker container gracefully?']))).toMatch(
      /^The user asked how to stop a Docker container gracefully/,
    );
    expect(await summarizer.summarize(chat(['USER', 'How many AWS Lambda functions should I create?']))).toMatch(
      /^The user asked how many AWS Lambda functions they should create/,
    );
    expect(
      await summarizer.summarize(chat(['USER', 'How are coroutines different from threads, and when should I use Dispatchers.IO?'])),
    ).toMatch(/^The user asked how coroutines are different from threads, and when they should use Dispatchers\.IO/);
    expect(await summarizer.summarize(chat(['USER', 'How many attempts should I allow before giving up?']))).toBe(
      'The user asked how many attempts they should allow before giving up; that question is still open.',
    );
  });

  it('reports advice that closes an answer as a suggestion', async () => {
    const summary = await summarizer.summarize(
      chat(
        ['USER', 'Should the idempotency key be a UUID?'],
        ['ASSISTANT', 'Yes, a random UUID generated once per payment works well; store it with the order.'],
        ['USER', 'I create a new HTTP client for every request, is that fine?'],
        ['ASSISTANT', 'That works, but reuse a single client instead: it keeps a pool of connections.'],
      ),
    );
    expect(summary).toContain(
      'The assistant confirmed that a random UUID generated once per payment works well, and suggested storing it with the order.',
    );
    expect(summary).toMatch(/The assistant (also )?suggested reusing a single client instead/);
    const permission = await summarizer.summarize(
      chat(['USER', 'Is Postgres fine for this?'], ['ASSISTANT', 'Postgres handles this load well, but feel free to benchmark both.']),
    );
    expect(permission).not.toContain('feeling free');
    const aside = await summarizer.summarize(
      chat(
        ['USER', 'Where do I keep sessions?'],
        ['ASSISTANT', 'Keep them in a fast store, say a Redis instance, and set a short expiry.'],
      ),
    );
    expect(aside).not.toContain('saying');
    expect(aside).toContain('setting a short expiry');
  });

  it('does not keep a sentence-initial capital in the middle of a reported sentence, unless it is a name', async () => {
    const summary = await summarizer.summarize(
      chat(
        ['USER', 'How are Kotlin coroutines different from threads?'],
        [
          'ASSISTANT',
          'Coroutines are lightweight tasks that the runtime schedules onto a small pool of threads. Many coroutines can share one thread.',
        ],
      ),
    );
    expect(summary).toContain('explained that coroutines are lightweight tasks');
    // The user types the name in lower case; the assistant, who capitalizes it, keeps it.
    const redis = await summarizer.summarize(
      chat(
        ['USER', 'i use redis for sessions, is that a good idea?'],
        ['ASSISTANT', 'Redis keeps data in memory, so sessions are fast to read.'],
      ),
    );
    expect(redis).toContain('that Redis keeps data in memory');
    const names = await summarizer.summarize(
      chat(
        ['USER', 'Why does my request work in Postman but not in the browser?'],
        ['ASSISTANT', 'Postman does not enforce CORS, but browsers do.'],
      ),
    );
    expect(names).toContain('that Postman does not enforce CORS');
  });

  it('says what remains open: a last question nobody has answered', async () => {
    const followUp = ['USER', 'And how many attempts should I allow before giving up?'] as [Role, string];
    const open = await summarizer.summarize([...retry.slice(0, 4), { id: 'm9', role: followUp[0], text: followUp[1] }]);
    expect(open).toMatch(/The user (then )?asked how many attempts they should allow before giving up; that question is still open\.$/);
    expect(open.split(/(?<=\.) /).length).toBeLessThanOrEqual(3);

    const answered = await summarizer.summarize([
      ...retry.slice(0, 4),
      { id: 'm9', role: followUp[0], text: followUp[1] },
      { id: 'm10', role: 'ASSISTANT', text: 'Three to five attempts within about thirty seconds is a common budget.' },
    ]);
    expect(answered).not.toContain('still open');
    // Even a bare "Yes." answers it, and a tag question asks for no answer.
    const yes = await summarizer.summarize(
      chat(
        ['USER', 'How do I undo a pushed commit?'],
        ['ASSISTANT', 'Use git revert, which adds a new commit.'],
        ['USER', 'Does that also work on a shared branch?'],
        ['ASSISTANT', 'Yes.'],
      ),
    );
    expect(yes).not.toContain('still open');
    const tag = await summarizer.summarize(
      chat(
        ['USER', 'How do I undo a pushed commit?'],
        ['ASSISTANT', 'Use git revert, which adds a new commit.'],
        ['USER', 'Thanks, that makes sense, right?'],
      ),
    );
    expect(tag).not.toContain('still open');
    // Thanks at the end close nothing, and leave nothing open.
    expect(await summarizer.summarize(retry)).not.toContain('still open');
  });

  it('describes shared code by language and never quotes it', async () => {
    for (const messages of Object.values(conversations)) {
      const summary = await summarizer.summarize(messages);
      expect(summary).not.toContain('```');
      for (const line of codeLines(messages)) expect(summary).not.toContain(line);
    }
    expect(await summarizer.summarize(indentedCode)).toMatch(/^The user shared a JavaScript code snippet and asked why it throws\./);
  });

  it('stays within a few sentences and the length limit', async () => {
    for (const messages of Object.values(conversations)) {
      const summary = await summarizer.summarize(messages);
      expect(summary.length).toBeLessThanOrEqual(600);
      expect(summary.match(/[.!?](\s|$)/g)?.length ?? 0).toBeLessThanOrEqual(4);
      expect(summary).toMatch(/^The (user|assistant) /);
    }
    const tight = createExtractiveSummarizer({ maxSummarySentences: 2, maxSummaryLength: 200 });
    const summary = await tight.summarize(retry);
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary.match(/\. /g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('leaves system prompts out and names custom speakers', async () => {
    const withSystem = chat(
      ['SYSTEM', 'You are a helpful coding assistant. Answer concisely.'],
      ['USER', 'What is the difference between let and const in JavaScript?'],
      ['ASSISTANT', 'Both are block scoped. A const binding cannot be reassigned, while a let binding can.'],
    );
    const summary = await summarizer.summarize(withSystem);
    expect(summary).toMatch(/^The user asked about the difference between let and const in JavaScript\./);
    expect(summary).not.toMatch(/helpful coding assistant/);

    const dialogue = createExtractiveSummarizer({ speakers: { USER: '#Person1#', ASSISTANT: '#Person2#' } });
    const text = await dialogue.summarize(
      chat(['USER', 'Do you smoke, Mr. Smith?'], ['ASSISTANT', 'Yes. I have tried to quit hundreds of times.']),
    );
    expect(text).toMatch(/^#Person1# asked whether #Person2# smokes\./);
  });

  it('reports the ask that names something over a vague one, and leaves out sentences that name nothing', async () => {
    const summary = await summarizer.summarize(
      chat(
        ['USER', 'I need to export 50,000 rows from Postgres to CSV every night. What is the best approach?'],
        [
          'ASSISTANT',
          'Use COPY with a query and write to STDOUT, then redirect the output to a file from a cron job. I know what you mean.',
        ],
      ),
    );
    expect(summary).toMatch(/^The user said they need to export 50,000 rows from Postgres to CSV every night\./);
    expect(summary).not.toMatch(/know what/);
  });

  it('summarizes small talk as small talk', async () => {
    expect(await summarizer.summarize(chat(['USER', 'hi'], ['ASSISTANT', 'Hello! How can I help you today?']))).toBe(
      'The user and the assistant exchanged greetings.',
    );
  });
});

describe('createExtractiveSummarizer: contract', () => {
  it('answers the same output for the same input', async () => {
    const a = createExtractiveSummarizer();
    const b = createExtractiveSummarizer();
    for (const messages of Object.values(conversations)) {
      const first = [await a.title(messages), await a.summarize(messages)];
      expect([await a.title(messages), await a.summarize(messages)]).toEqual(first);
      expect([await b.title(messages), await b.summarize(messages)]).toEqual(first);
    }
  });

  it("answers '' when no message has usable text", async () => {
    const summarizer = createExtractiveSummarizer();
    for (const messages of [[], chat(['USER', '']), chat(['USER', '   \n\t'], ['ASSISTANT', '...!?'])]) {
      expect(await summarizer.title(messages)).toBe('');
      expect(await summarizer.summarize(messages)).toBe('');
    }
  });

  it('never answers an empty title when some message has text', async () => {
    const summarizer = createExtractiveSummarizer();
    for (const text of ['ok', '42', 'Why?', 'lol 🚀', 'a'.repeat(500), '#Person1#: Hello.']) {
      expect(await summarizer.title(chat(['USER', text])), text).not.toBe('');
    }
  });

  it('loads the NLP model on first use, unloads it, and loads it again', async () => {
    const summarizer = createExtractiveSummarizer();
    expect(summarizer.isLoaded()).toBe(false);
    await summarizer.title(retry);
    expect(summarizer.isLoaded()).toBe(true);
    await summarizer.unload();
    expect(summarizer.isLoaded()).toBe(false);
    expect(await summarizer.summarize(retry)).toMatch(/^The user asked how to retry/);
    expect(summarizer.isLoaded()).toBe(true);
  });

  it('shares one load between concurrent first calls', async () => {
    const summarizer = createExtractiveSummarizer();
    const [title, summary] = await Promise.all([summarizer.title(retry), summarizer.summarize(retry)]);
    expect(title).not.toBe('');
    expect(summary).not.toBe('');
    expect(summarizer.isLoaded()).toBe(true);
  });

  it('describes itself as an offline extractive model', () => {
    const { model } = createExtractiveSummarizer();
    expect(model).toMatchObject({ id: 'extractive-summarizer', usage: 'CODE_DESCRIPTION', type: 'SPEED', cloud: false });
    expect(model.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(createExtractiveSummarizer({ model: { id: 'custom' } }).model.id).toBe('custom');
  });
});

describe('createExtractiveSummarizer: rules kept because people write this way', () => {
  const summarizer = createExtractiveSummarizer();

  it('titles a bare "why is this happening?" about code by what it is', async () => {
    const messages = chat(
      ['USER', 'Why is this happening?\n\n```python\nx = [1, 2]\nprint(x[5])\n```'],
      ['ASSISTANT', 'The list has two items, so index 5 is out of range.'],
    );
    expect(await summarizer.title(messages)).toBe('Unexpected behavior in Python code');
  });

  it('reports an answer that opens with "Note that" as noted, not as "explained that note that"', async () => {
    const messages = chat(
      ['USER', 'Does the cache survive a restart of the server?'],
      ['ASSISTANT', 'Note that the cache lives in process memory, so a restart empties it.'],
    );
    expect(await summarizer.summarize(messages)).toBe(
      'The user asked whether the cache survives a restart of the server. The assistant noted that the cache lives in process memory, so a restart empties it.',
    );
  });

  it('does not take two messages of unknown speakers for one person', async () => {
    const messages = chat(
      ['UNKNOWN', 'We should move the standup to ten in the morning.'],
      ['UNKNOWN', 'Ten in the morning clashes with the design review every Tuesday.'],
    );
    expect(await summarizer.summarize(messages)).toMatch(
      /^A participant said .*\. Another participant said that ten in the morning clashes/,
    );
  });

  it('joins two things one speaker said into one sentence instead of repeating the speaker', async () => {
    const trains = chat(
      ['USER', 'Could you tell me the times of trains to London? And how much is a return ticket?'],
      ['ASSISTANT', 'There is a saver return which is 9 pounds if you travel after six.'],
    );
    const summary = await summarizer.summarize(trains);
    expect(summary).toMatch(/^The user asked the assistant to tell them the times of trains to London and how much a return ticket is\. /);
    expect(summary).not.toMatch(/The user also/);
    // A first clause with an `and` of its own is closed by a comma before the next one.
    const image = chat(
      ['USER', 'My Node.js Docker image and its cache are 1.2 GB. How do I make it smaller?'],
      ['ASSISTANT', 'Add a .dockerignore with node_modules and .git, so the build context does not copy them.'],
    );
    expect(await summarizer.summarize(image)).toMatch(
      /^The user said that their Node\.js Docker image and its cache are 1\.2 GB, and asked how to make it smaller\./,
    );
  });

  it('never titles a chat after a pasted log or script line', async () => {
    const log = chat(
      [
        'USER',
        'Getting this error in the deploy step of the workflow. Can you fix please?\n\n' +
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a pasted shell script, not a template.
          'Run # Debug: Check if GH_TOKEN is set\n  # Debug: Check if GH_TOKEN is set\n  echo "GH_TOKEN length: ${#GH_TOKEN}"\n  gh auth status || echo "failed"',
      ],
      [
        'ASSISTANT',
        'The token is not passed to the step, so the gh command runs without credentials and the lookup of the pull request fails. ' +
          'Add the token to the env block of the job, and give the workflow the pull-requests read permission it needs. ' +
          'The condition that ends the step also treats a workflow_run event as an error, so the step exits with 1 even when the lookup works. ' +
          'Both changes are in the workflow file now, and the next run of the workflow will show whether the token reaches the step.',
      ],
    );
    const title = await summarizer.title(log);
    expect(title).not.toMatch(/#|Debug|GH_TOKEN/);
    expect(title).toMatch(/error/i);
  });

  it('still retells a how-to answered in long plain prose, with no outcome for a note to quote', async () => {
    const moment = 'Pick a good moment, such as after a successful project, and ask for a meeting instead of bringing it up in passing.';
    const raise = chat(
      ['USER', 'How do I ask my boss for a raise?'],
      [
        'ASSISTANT',
        `Start by researching what people in your role earn, so you can name a fair number. ${Array(8).fill(moment).join(' ')} ` +
          'Practice what you will say, stay calm, and if the answer is no, ask what you would need to do to earn it in six months.',
      ],
    );
    expect(await summarizer.summarize(raise)).toMatch(/^The user asked how to ask their boss for a raise\. The assistant suggested/);
  });

  it('takes an error label for what the user asks about, not for a heading', async () => {
    const cause = 'This usually means the module was installed in a different folder than the one you run node from.';
    const error = chat(
      ['USER', 'Error: Cannot find module express. I ran npm install already. What is going on?'],
      ['ASSISTANT', `${Array(10).fill(cause).join(' ')} Run npm ls express in the project folder.`],
    );
    expect(await summarizer.title(error)).toMatch(/module express/i);
  });

  it('reads `Is this Mrs. Brown?` as asking who is there, not about `this Mrs. Brown`', async () => {
    const call = chat(['USER', 'Is this Mrs. Brown?'], ['ASSISTANT', 'Yes, it is.']);
    expect(await summarizer.summarize(call)).toMatch(/^The user asked whether this is Mrs\. Brown\./);
    const app = chat(['USER', 'Is this React app slow on mobile?'], ['ASSISTANT', 'Only on old phones.']);
    expect(await summarizer.summarize(app)).toMatch(/^The user asked whether this React app is slow on mobile\./);
  });

  it('says a repeated reporting verb once: `said X and that Y`', async () => {
    const tired = chat(['USER', 'I am exhausted. I worked twelve hours today.'], ['ASSISTANT', 'You should go to bed early tonight.']);
    expect(await summarizer.summarize(tired)).toMatch(
      /^The user said (that )?they are exhausted and that they worked twelve hours today\./,
    );
  });

  it('does not retell a long plan-like answer to a how-to question sentence by sentence', async () => {
    const steps = Array.from(
      { length: 12 },
      (_, i) => `**Step ${i + 1}** - Create the page for section ${i + 1} with its own layout, links and sample content.`,
    ).join('\n\n');
    const plan = chat(
      ['USER', 'How can I implement this with Astro?'],
      [
        'ASSISTANT',
        `I'll analyze your current Astro project structure and create a plan for the documentation website.\n\n${steps}\n\n` +
          '**Would you like me to:**\n\n**Option B** - Create sample content first so you can see the full flow?\n\n' +
          'The site structure is ready for the listing pages and the detail pages of every device.',
      ],
    );
    const summary = await summarizer.summarize(plan);
    expect(summary).not.toMatch(/asked whether Option B|explained that \*|explained that Step/);
    expect(summary).toMatch(/^The user (asked for help with|asked: “How can I implement this with Astro)/);
  });

  it('reports a sentence addressed by name as said to that person, with no stray vocative or interjection', async () => {
    const asked = chat(
      ['USER', 'Mrs. Wang, would you give me an idea of the price you regard as workable?'],
      ['ASSISTANT', 'As I said before, your price is so high that we find it difficult to make a bid.'],
    );
    expect(await summarizer.summarize(asked)).toMatch(
      /^The user asked Mrs\. Wang to give them an idea of the price Mrs\. Wang regards as workable\./,
    );
    const told = chat(['USER', 'Look, George, there is the Great Wall.'], ['ASSISTANT', 'It is a major symbol of China.']);
    expect(await summarizer.summarize(told)).toMatch(/^The user told George that there is the Great Wall\./);
  });
});
