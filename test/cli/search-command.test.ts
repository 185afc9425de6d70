/**
 * `search` against a running server (the command's own `serve`, on a free 127.0.0.1 port, with an
 * API_TOKEN), seeded with three conversations through its HTTP API: a block per match, best first
 * (title, day, id, then the best passage indented); a line when nothing matches; `--messages`,
 * `--limit`; a missing query is a usage error, exit 2. Then `trash list|restore|empty` against the
 * same server, started with TRASH_DAYS=7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationBlock, cut, formatBlocks, messageBlock } from '../../adapters/cli/search.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

const TOKEN = 'cli-search-token';
const PROGRAM = 'conversation-model-service';
let server: ServeProcess;
let port: string;

interface Seeded {
  readonly id: string;
  readonly updated: { value: string };
  readonly messages: { iterable: { id: string; reference: { created: { value: string } } }[] };
}
let garden: Seeded;
let bicycle: Seeded;
let kitchen: Seeded;

/** A request to the server, with the token. */
async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.ok, `${method} ${route}: ${response.status}`).toBe(true);
  return (await response.json()) as T;
}

/** The day of a stamp as the command prints it: local time, YYYY-MM-DD (the child process has this one's TZ). */
function day(value: string): string {
  const date = new Date(value);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/** Runs `search` against the server: found through PORT and HOST, with the token. */
const search = (...args: string[]) => runCli(['search', ...args], { PORT: port, HOST: '127.0.0.1', API_TOKEN: TOKEN });

beforeAll(async () => {
  server = await startServeProcess(await tempDir(), { API_TOKEN: TOKEN, PORT: '', HOST: '', TRASH_DAYS: '7' });
  port = new URL(server.url).port;
  const create = (input: object) => call<Seeded>('POST', '/conversations/create', { type: 'COPILOT', ...input });
  garden = await create({
    name: 'Garden plans',
    messages: [
      said('USER', 'What should I grow this spring?'),
      said('ASSISTANT', 'Tomatoes, in the south bed where the sun lasts longest.'),
    ],
  });
  bicycle = await create({ messages: [said('USER', 'My bicycle chain keeps slipping on the hills.')] });
  kitchen = await create({ name: 'Kitchen', messages: [said('USER', 'A recipe for tomato soup, please.')] });
});
afterAll(() => server?.kill());

describe('search', () => {
  it('prints a block per matching conversation: title, day, id, then the best passage, indented', async () => {
    const run = await search('south bed');
    expect(run).toEqual({
      code: 0,
      stdout: `Garden plans  ${day(garden.updated.value)}  ${garden.id}\n  Tomatoes, in the south bed where the sun lasts longest.\n`,
      stderr: '',
    });
  });

  it('calls a conversation without a name "(untitled)"', async () => {
    const run = await search('bicycle chain');
    expect(run).toEqual({
      code: 0,
      stdout: `(untitled)  ${day(bicycle.updated.value)}  ${bicycle.id}\n  My bicycle chain keeps slipping on the hills.\n`,
      stderr: '',
    });
  });

  it('prints every match, blocks separated by a blank line; --limit (or -n) keeps the best N', async () => {
    const all = await search('tomatoes');
    expect({ code: all.code, stderr: all.stderr }).toEqual({ code: 0, stderr: '' });
    const blocks = all.stdout.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks).toContain(
      `Garden plans  ${day(garden.updated.value)}  ${garden.id}\n  Tomatoes, in the south bed where the sun lasts longest.`,
    );
    expect(blocks).toContain(`Kitchen  ${day(kitchen.updated.value)}  ${kitchen.id}\n  A recipe for tomato soup, please.`);

    for (const flag of ['--limit', '-n']) {
      const one = await search('tomatoes', flag, '1');
      expect({ code: one.code, stderr: one.stderr }).toEqual({ code: 0, stderr: '' });
      // The best of the two, as the full list puts it first.
      expect(one.stdout).toBe(`${blocks[0]}\n`);
    }
  });

  it('says so when nothing matches, exit 0', async () => {
    expect(await search('zeppelin')).toEqual({ code: 0, stdout: 'No conversations match "zeppelin".\n', stderr: '' });
    expect(await search('zeppelin', '--messages')).toEqual({ code: 0, stdout: 'No messages match "zeppelin".\n', stderr: '' });
  });

  it("--messages prints a block per matching message: its conversation's title, its day, its id, then role and passage", async () => {
    const message = garden.messages.iterable[1]!;
    const run = await search('south bed', '--messages');
    expect(run).toEqual({
      code: 0,
      stdout: `Garden plans  ${day(message.reference.created.value)}  ${message.id}\n  assistant: Tomatoes, in the south bed where the sun lasts longest.\n`,
      stderr: '',
    });

    const both = await search('tomatoes', '--messages', '--limit', '5');
    expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 0, stderr: '' });
    expect(both.stdout.trimEnd().split('\n\n')).toHaveLength(2);
    expect(both.stdout).toContain(`  user: A recipe for tomato soup, please.\n`);
    expect(both.stdout).toContain(`${kitchen.messages.iterable[0]!.id}\n`);
  });

  it('finds the server through --url too, and sends API_TOKEN (without it: one line, exit 1)', async () => {
    const viaUrl = await runCli(['search', 'south bed', '--url', server.url], { API_TOKEN: TOKEN });
    expect({ code: viaUrl.code, stderr: viaUrl.stderr }).toEqual({ code: 0, stderr: '' });
    expect(viaUrl.stdout).toContain(garden.id);

    const refused = await runCli(['search', 'south bed'], { PORT: port });
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^[^\n]*Set API_TOKEN to the server's token\.\n$/);
  });

  it.each([
    [[], 'search needs a query'],
    [[''], 'search needs a query'],
    [['--messages'], 'search needs a query'],
    [['two', 'words'], 'unexpected argument "words"'],
    [['tomatoes', '--limit', '0'], '--limit must be a whole number from 1 to 1000, not "0"'],
    [['tomatoes', '--limit', 'ten'], '--limit must be a whole number from 1 to 1000, not "ten"'],
    [['tomatoes', '--limit'], '--limit needs a value (--limit N)'],
  ])('%j: "%s", exit 2, nothing asked of the server', async (args, message) => {
    expect(await search(...args)).toEqual({ code: 2, stdout: '', stderr: `${PROGRAM}: ${message} (see ${PROGRAM} search --help)\n` });
  });
});

describe('trash', () => {
  const trash = (...args: string[]) => runCli(['trash', ...args], { PORT: port, HOST: '127.0.0.1', API_TOKEN: TOKEN });

  it('lists a deleted conversation (kept TRASH_DAYS), restores it for search to find again, and empties the trash', async () => {
    const deleted = await fetch(`${server.url}/conversations/${kitchen.id}/delete`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(deleted.status).toBe(204);
    const soup = { engines: { iterable: [{ query: 'soup' }] } };
    const found = async () => (await call<{ iterable: { identifier: string }[] }>('POST', '/conversations/search', soup)).iterable;
    expect(await found()).toEqual([]);
    const [entry] = (await call<{ iterable: { deleted: { value: string }; expires: { value: string } }[] }>('GET', '/trash')).iterable;
    expect(Date.parse(entry!.expires.value) - Date.parse(entry!.deleted.value)).toBe(7 * 24 * 60 * 60 * 1000);
    // Into a pipe: tab-separated.
    expect(await trash('list')).toEqual({
      code: 0,
      stdout: `ID\tNAME\tDELETED\tEXPIRES\tMESSAGES\n${kitchen.id}\tKitchen\t${day(entry!.deleted.value)}\t${day(entry!.expires.value)}\t1\n`,
      stderr: '',
    });

    expect(await trash('restore', kitchen.id)).toEqual({ code: 0, stdout: `restored ${kitchen.id} (Kitchen)\n`, stderr: '' });
    expect((await found()).map((hit) => hit.identifier)).toEqual([kitchen.id]);
    const again = await trash('restore', kitchen.id);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 1, stdout: '' });
    expect(again.stderr).toContain(`No conversation of the id "${kitchen.id}" is in the trash.`);

    const removed = await call<{ id: string }>('POST', '/conversations/create', { type: 'COPILOT' });
    await fetch(`${server.url}/conversations/${removed.id}/delete`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(await trash('empty')).toEqual({ code: 0, stdout: 'removed 1 conversation from the trash\n', stderr: '' });
    expect(await trash('list')).toEqual({ code: 0, stdout: 'The trash is empty.\n', stderr: '' });
  });
});

describe('the blocks, as printed', () => {
  it("take a conversation's best message passage, on one line; a hit without one is its heading alone", () => {
    const hit = {
      identifier: 'c1',
      conversation: { id: 'c1', name: 'Two\nlines\u001b[31m', updated: { value: '2026-03-04T12:00:00.000Z' } },
      messages: {
        iterable: [
          { identifier: 'm1', similarity: 0.2, snippet: 'the lesser' },
          { identifier: 'm2', similarity: 0.9, snippet: 'the\tbest\r\npassage' },
        ],
      },
    };
    expect(conversationBlock(hit)).toEqual({
      title: 'Two lines [31m',
      date: day('2026-03-04T12:00:00.000Z'),
      id: 'c1',
      snippet: 'the best passage',
    });
    expect(conversationBlock({ identifier: 'c2' })).toEqual({ title: '(untitled)', date: '-', id: 'c2' });
    const message = { identifier: 'm3', snippet: 'hello', message: { conversation: { id: 'c9' }, role: 'ASSISTANT' } };
    expect(messageBlock(message, new Map([['c9', 'Named']]))).toEqual({ title: 'Named', date: '-', id: 'm3', snippet: 'assistant: hello' });
    expect(messageBlock(message, new Map([['c9', '']])).title).toBe('(untitled)');
  });

  it('cut the passage to the width on a terminal, whole characters only; not into a pipe', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(cut('ab😀😀cd', 4)).toBe('ab😀…');
    const blocks = [
      { title: 'A', date: '2026-01-01', id: 'x', snippet: 'a long passage indeed' },
      { title: 'B', date: '2026-01-02', id: 'y' },
    ];
    expect(formatBlocks(blocks, 12)).toBe('A  2026-01-01  x\n  a long pa…\n\nB  2026-01-02  y\n');
    expect(formatBlocks(blocks, undefined)).toBe('A  2026-01-01  x\n  a long passage indeed\n\nB  2026-01-02  y\n');
  });
});
