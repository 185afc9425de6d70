import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { steppingClock } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { answers, exportTo, populate } from './populate.js';

const open: Service[] = [];
afterEach(async () => {
  for (const service of open.splice(0)) await service.close();
});

async function folderService(dataDir?: string): Promise<Service> {
  const service = await createService({
    dataDir: dataDir ?? (await tempDir()),
    summarizer: createFakeSummarizer(),
    clock: steppingClock(),
  });
  open.push(service);
  return service;
}

describe('the JSON export and import, on the JSON-file store', () => {
  it('round-trips: every conversation answers the same bytes after an import into an empty folder, and a second import writes nothing', async () => {
    const from = await folderService();
    const ids = await populate(from, 3);
    const file = path.join(await tempDir(), 'export.json');
    await exportTo(from, file);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('{"format":"conversation-model-service","version":1,"exported":"')).toBe(true);
    // One record a line, between the header and the end: a line reader can take it too.
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(']}');
    expect(JSON.parse(lines[1]!.replace(/,$/, ''))).toMatchObject({ collection: 'conversations' });

    const to = await folderService();
    const report = await to.importConversations(file);
    expect(report.format).toBe('json');
    expect(report.conversations).toEqual({ written: 3, unchanged: 0 });
    expect(report.messages.written).toBe(6);
    expect(await answers(to)).toEqual(await answers(from));
    expect([...(await answers(to)).keys()]).toEqual(ids);
    // The links made by associate came along, both sides.
    expect((await to.listTags()).iterable[0]).toMatchObject({ text: 'garden' });
    expect((await to.listModels()).iterable.some((model) => model.name === 'my-model')).toBe(true);

    const again = await to.importConversations(file);
    expect(again.conversations).toEqual({ written: 0, unchanged: 3 });
    expect(Object.values(again.collections).every((counts) => counts!.written === 0)).toBe(true);
    expect(await answers(to)).toEqual(await answers(from));
  });

  it('refuses a record stored differently, naming it, and writes nothing', async () => {
    const from = await folderService();
    const [first] = await populate(from, 2);
    const file = path.join(await tempDir(), 'export.json');
    await exportTo(from, file);
    const to = await folderService();
    // The store holds the first conversation already, renamed; the other is not there yet.
    const text = (await readFile(file, 'utf8')).replace('"name":"Conversation 0"', '"name":"Renamed"');
    const changed = path.join(await tempDir(), 'changed.json');
    await writeFile(changed, text);
    await to.importConversations(changed);
    const before = await answers(to);
    await expect(to.importConversations(file)).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { resource: 'conversation', id: first },
      message: expect.stringMatching(/record 0 of the file.*nothing was imported/),
    });
    expect(await answers(to)).toEqual(before);
  });

  it('refuses a truncated or malformed file, saying where, and writes nothing', async () => {
    const from = await folderService();
    await populate(from, 2);
    const dir = await tempDir();
    const file = path.join(dir, 'export.json');
    await exportTo(from, file);
    const text = await readFile(file, 'utf8');
    const to = await folderService();

    const cut = path.join(dir, 'cut.json');
    await writeFile(cut, text.slice(0, Math.floor(text.length * 0.8)));
    await expect(to.importConversations(cut)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/after record \d+, the \w+ "[^"]+".*cut short/),
    });

    const lines = text.split('\n');
    const bad = path.join(dir, 'bad.json');
    // The third record loses a field every message must have.
    const third = JSON.parse(lines[3]!.replace(/,$/, ''));
    const { created: _c, ...record } = third.record;
    lines[3] = `${JSON.stringify({ collection: third.collection, record })},`;
    await writeFile(bad, lines.join('\n'));
    await expect(to.importConversations(bad)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { id: third.record.id },
      message: expect.stringContaining(`Record 2 of the file`),
    });

    const junk = path.join(dir, 'junk.json');
    await writeFile(junk, text.replace('"record":{', '"record":{{'));
    await expect(to.importConversations(junk)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/not valid JSON near byte \d+/),
    });

    const trash = path.join(dir, 'trash.json');
    await writeFile(trash, text.replace('{"collection":"conversations"', '{"collection":"trash"'));
    await expect(to.importConversations(trash)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('"trash" is not one this release imports'),
    });

    expect((await to.listConversationIdentifiers()).iterable).toEqual([]);
  });

  it('exports some conversations with what they link to; imported into an empty store they answer as they did', async () => {
    const from = await folderService();
    const ids = await populate(from, 3);
    const file = path.join(await tempDir(), 'one.json');
    await exportTo(from, file, { format: 'json', conversations: [ids[2]!] });
    const to = await folderService();
    const report = await to.importConversations(file, { format: 'json' });
    expect(report.conversations.written).toBe(1);
    // The shared anchor came, naming only the conversation that did.
    const { iterable: anchors } = await to.listAnchors();
    expect(anchors).toHaveLength(1);
    expect(anchors[0]!.conversations?.iterable.map((c) => c.id)).toEqual([ids[2]]);
    expect(await to.getConversationJson(ids[2]!)).toBe(await from.getConversationJson(ids[2]!));
    // Its anchor names conversations left out: a second import still finds it unchanged.
    const again = await to.importConversations(file);
    expect(Object.values(again.collections).every((counts) => counts!.written === 0)).toBe(true);
    await expect(async () => {
      for await (const _ of from.exportConversations({ format: 'json', conversations: ['nope'] })) void _;
    }).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
