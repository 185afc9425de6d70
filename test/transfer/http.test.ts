import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../adapters/hono/serve.js';
import { createService, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { EXPORT_PAGE } from '../../src/transfer/export-json.js';
import { tempDir } from '../helpers/temp-dir.js';
import { answers } from './populate.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function served(): Promise<{ service: Service; url: string }> {
  const service = await createService({ dataDir: await tempDir(), summarizer: createFakeSummarizer() });
  closers.push(() => service.close());
  const server = await startHttpServer(service, { port: 0, host: '127.0.0.1', keepAliveTimeoutMs: 500, shutdownGraceMs: 1_000 });
  closers.push(server.close);
  return { service, url: server.url };
}

describe('the export and import routes', () => {
  it('stream an export of more than a page from one server into another, whose conversations then answer the same', async () => {
    const from = await served();
    // More messages than a page of the export holds.
    for (let i = 0; i < 3; i++) {
      await from.service.createConversation({
        type: 'COPILOT',
        name: `Talk ${i}`,
        messages: Array.from({ length: EXPORT_PAGE + 50 }, (_, j) => ({
          role: j % 2 ? 'ASSISTANT' : 'USER',
          fragment: { string: { raw: `message ${j} of talk ${i}` } },
        })),
      } as never);
    }
    const exported = await fetch(`${from.url}/conversations/export?format=json`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/json');
    // Streamed: sent in chunks as it is read, with no length known ahead.
    expect(exported.headers.get('content-length')).toBeNull();
    expect(exported.headers.get('transfer-encoding')).toBe('chunked');
    const body = await exported.text();

    const to = await served();
    const imported = await fetch(`${to.url}/conversations/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({
      format: 'json',
      conversations: { written: 3, unchanged: 0 },
      messages: { written: 3 * (EXPORT_PAGE + 50) },
    });
    expect(await answers(to.service)).toEqual(await answers(from.service));

    // One conversation as Markdown, named after its title.
    const [first] = (await from.service.listConversationIdentifiers()).iterable;
    const markdown = await fetch(`${from.url}/conversations/export?format=markdown&conversation=${first!.id}`);
    expect(markdown.headers.get('content-disposition')).toBe('attachment; filename="Talk 0.md"');
    expect(await markdown.text()).toMatch(/^# Talk 0\n/);
  });

  it('answer a bad import or an unknown conversation with its error, never a 500', async () => {
    const { url, service } = await served();
    const bad = await fetch(`${url}/conversations/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"format":"conversation-model-service","version":1,"records":[{"collection":"messages"',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/cut short/);
    const missing = await fetch(`${url}/conversations/export?conversation=nope`);
    expect(missing.status).toBe(404);
    const format = await fetch(`${url}/conversations/export?format=pdf`);
    expect(format.status).toBe(400);
    const tooBig = await startHttpServer(service, { port: 0, maxImportBytes: 100, keepAliveTimeoutMs: 500, shutdownGraceMs: 1_000 });
    closers.push(tooBig.close);
    const large = await fetch(`${tooBig.url}/conversations/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ x: 'y'.repeat(1000) }),
    });
    expect(large.status).toBe(413);
  });

  it('refuse a hostile web page: its import and its export are turned away before any work', async () => {
    const { url, service } = await served();
    await service.createConversation({ type: 'COPILOT', name: 'Secret' } as never);
    const body = JSON.stringify([
      { id: 'x', title: 'Planted', created_at: 1717236000, chat: { messages: [{ role: 'user', content: 'hi' }] } },
    ]);
    const hostile = { Origin: 'https://evil.example' };
    const posted = await fetch(`${url}/conversations/import`, {
      method: 'POST',
      headers: { ...hostile, 'Content-Type': 'application/json' },
      body,
    });
    expect(posted.status).toBe(403);
    // What a form can send without a preflight: refused whatever its origin.
    const form = await fetch(`${url}/conversations/import`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body });
    expect(form.status).toBe(415);
    const read = await fetch(`${url}/conversations/export`, { headers: hostile });
    expect(read.status).toBe(403);
    expect(await read.text()).not.toContain('Secret');
    // A page on a name pointed at this machine (DNS rebinding).
    expect(await statusFor(`${url}/conversations/export`, { Host: 'evil.example' })).toBe(403);
    const names = (await service.listConversations()).iterable.map((c) => c.name);
    expect(names).toEqual(['Secret']);
  });
});

/** A GET's status, with headers fetch would not send (Host). */
function statusFor(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject).end();
  });
}
