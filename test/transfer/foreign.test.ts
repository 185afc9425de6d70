import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, markdownFileName, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { closedFences } from '../../src/transfer/markdown.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/transfer');
const open: Service[] = [];
afterEach(async () => {
  for (const service of open.splice(0)) await service.close();
});

async function memoryService(): Promise<Service> {
  const service = await createService({ summarizer: createFakeSummarizer() });
  open.push(service);
  return service;
}

/** Each conversation as title and `ROLE: text` lines, in order. */
async function transcript(service: Service) {
  const { iterable } = await service.listConversations();
  const out = [];
  for (const c of iterable) {
    const { iterable: messages } = await service.listConversationMessages(c.id);
    out.push({ name: c.name, created: c.created.value, messages: messages.map((m) => `${m.role}: ${m.fragment?.string?.raw}`) });
  }
  return out;
}

describe('importing other programs’ exports', () => {
  it("imports ChatGPT's conversations.json: titles, times, the chosen branch's messages in order; a second import writes nothing", async () => {
    const service = await memoryService();
    const file = path.join(FIXTURES, 'chatgpt-conversations.json');
    const report = await service.importConversations(file);
    expect(report).toMatchObject({
      format: 'chatgpt',
      conversations: { written: 3, unchanged: 0 },
      messages: { written: 9, unchanged: 0 },
    });
    expect(await transcript(service)).toEqual([
      {
        name: 'Garden plans',
        created: '2024-05-01T10:00:00.123Z',
        // The regenerated answer (another branch) and the hidden system message are left out.
        messages: [
          'USER: When should I plant tomatoes?',
          'ASSISTANT: After the last frost, when the soil is warm.',
          'USER: And peppers?',
          'ASSISTANT: Two weeks later than tomatoes.',
        ],
      },
      {
        name: 'Parse a CSV in Python',
        created: '2024-05-02T10:00:00.000Z',
        // The tool's output is left out; the code the assistant ran is kept, fenced.
        messages: [
          'USER: How do I read a CSV file in Python?',
          expect.stringMatching(/^ASSISTANT: Use the `csv` module:\n\n```python\nimport csv/),
          "ASSISTANT: ```python\nprint(len(open('data.csv').readlines()))\n```",
        ],
      },
      {
        name: 'Haiku',
        created: '2024-05-03T10:00:00.000Z',
        messages: ['USER: Write a haiku about rain.', expect.stringMatching(/^ASSISTANT: Soft rain/)],
      },
    ]);
    const again = await service.importConversations(file, { format: 'chatgpt' });
    expect(again).toMatchObject({ conversations: { written: 0, unchanged: 3 }, messages: { written: 0, unchanged: 9 } });
    expect((await service.listConversationIdentifiers()).iterable).toHaveLength(3);
  });

  it("imports Open WebUI's chat export along each chat's current branch", async () => {
    const service = await memoryService();
    const report = await service.importConversations(path.join(FIXTURES, 'openwebui-export.json'));
    expect(report).toMatchObject({ format: 'openwebui', conversations: { written: 2, unchanged: 0 }, messages: { written: 7 } });
    expect(await transcript(service)).toEqual([
      {
        name: 'Shell one-liners',
        created: '2024-06-01T10:00:00.000Z',
        messages: [
          'USER: Count lines in every .ts file',
          "ASSISTANT: ```bash\nfind . -name '*.ts' | xargs wc -l\n```",
          'USER: Only files under src/',
          "ASSISTANT: ```bash\nfind src -name '*.ts' -exec wc -l {} +\n```",
        ],
      },
      // The system prompt is kept; the empty reply that never finished is not.
      { name: 'Greeting', created: '2024-06-02T10:00:00.000Z', messages: ['SYSTEM: You are terse.', 'USER: Hello!', 'ASSISTANT: Hi.'] },
    ]);
  });

  it('names the conversation a bad foreign file fails at, and imports nothing of it', async () => {
    const service = await memoryService();
    const file = path.join(await tempDir(), 'bad.json');
    await writeFile(
      file,
      JSON.stringify([
        {
          id: 'ok',
          title: 'Fine',
          created_at: 1717236000,
          chat: { history: { messages: { a: { id: 'a', parentId: null, role: 'user', content: 'hi' } }, currentId: 'a' } },
        },
        {
          id: 'loop',
          title: 'Looping',
          created_at: 1717236000,
          chat: { history: { messages: { a: { id: 'a', parentId: 'b' }, b: { id: 'b', parentId: 'a' } }, currentId: 'a' } },
        },
      ]),
    );
    await expect(service.importConversations(file)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining(
        'Conversation 1 of the Open WebUI file "loop" ("Looping") cannot be imported: its message tree has a cycle',
      ),
    });
    await writeFile(file, '{"hello": "world"}');
    await expect(service.importConversations(file)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('in no format this service imports'),
    });
    expect((await service.listConversationIdentifiers()).iterable).toEqual([]);
  });
});

describe('the Markdown export', () => {
  it('reads right: title, dates, summary, then each message with its role and time, code blocks intact', async () => {
    const service = await memoryService();
    await service.importConversations(path.join(FIXTURES, 'chatgpt-conversations.json'));
    const { iterable } = await service.listConversations();
    const csv = iterable.find((c) => c.name === 'Parse a CSV in Python')!;
    await service.summarizeConversation(csv.id);
    let markdown = '';
    for await (const chunk of service.exportConversations({ format: 'markdown', conversations: [csv.id] })) markdown += chunk;
    expect(markdown).toMatch(
      /^# Parse a CSV in Python\n\n- Created: 2024-05-02T10:00:00.000Z\n- Updated: .*\n- Id: `[\w-]+`\n\n## Summary\n\n.+\n\n## Messages\n\n### User · 2024-05-02T10:00:01.000Z\n\nHow do I read a CSV file in Python\?\n\n### Assistant · 2024-05-02T10:00:05.000Z\n\nUse the `csv` module:\n\n```python\n/,
    );
    // The four-backtick block holding a three-backtick one is whole.
    expect(markdown).toContain('````markdown\n```js\nconsole.log(1)\n```\n````\n\n### Assistant');
    // All conversations, one after another.
    let all = '';
    for await (const chunk of service.exportConversations({ format: 'markdown' })) all += chunk;
    expect(all.match(/^# /gm)).toHaveLength(3);
  });

  it('closes a code block a message leaves open, so it cannot swallow the next message', () => {
    expect(closedFences('see:\n```js\nconst a = 1;')).toBe('see:\n```js\nconst a = 1;\n```');
    expect(closedFences('````\n```\nx\n```\n````')).toBe('````\n```\nx\n```\n````');
    expect(closedFences('~~~~\ncode')).toBe('~~~~\ncode\n~~~~');
  });

  it('makes safe, bounded, unique file names from titles', () => {
    const taken = new Set<string>();
    expect(markdownFileName('../../etc/passwd', 'abc', taken)).toBe('etc-passwd.md');
    expect(markdownFileName('a/b\\c:d*e?', 'abc', taken)).toBe('a-b-c-d-e.md');
    expect(markdownFileName('..', 'abc', taken)).toBe('conversation.md');
    expect(markdownFileName(undefined, 'abcdef123456', taken)).toBe('conversation (abcdef12).md');
    expect(markdownFileName('CON', 'x', taken)).toBe('CON_.md');
    expect(markdownFileName('Etc-Passwd', 'z', taken)).toBe('Etc-Passwd (z).md');
    const long = markdownFileName('x'.repeat(500), 'id', taken);
    expect(long.length).toBeLessThanOrEqual(90);
  });
});
