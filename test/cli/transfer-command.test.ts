import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startHttpServer } from '../../adapters/hono/serve.js';
import { createService } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { answers, populate } from '../transfer/populate.js';
import { runCli } from './run-cli.js';

const open = async (dataDir: string) => {
  const service = await createService({ dataDir, summarizer: createFakeSummarizer() });
  return service;
};

describe('export and import commands', () => {
  it('export a stopped data folder to a file and import it into another: the conversations answer the same', async () => {
    const [from, to, work] = [await tempDir(), await tempDir(), await tempDir()];
    const source = await open(from);
    await populate(source, 2);
    const expected = await answers(source);
    await source.close();
    const file = path.join(work, 'export.json');

    const exported = await runCli(['export', '--data-dir', from, '--out', file]);
    expect(exported, exported.stderr).toMatchObject({ code: 0 });
    const imported = await runCli(['import', file, '--data-dir', to]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/Imported .*\(json\): 2 conversations and 4 messages written, 0 conversations unchanged\./);

    const target = await open(to);
    onTestFinished(() => target.close());
    expect(await answers(target)).toEqual(expected);
  });

  it('export Markdown files through a running server, one a conversation, named after the titles', async () => {
    const service = await open(await tempDir());
    onTestFinished(() => service.close());
    await populate(service, 2);
    const server = await startHttpServer(service, { port: 0, keepAliveTimeoutMs: 500, shutdownGraceMs: 1_000 });
    onTestFinished(server.close);
    const folder = path.join(await tempDir(), 'notes');
    const run = await runCli(['export', '--format', 'markdown', '--out', folder, '--url', server.url]);
    expect(run.code, run.stderr).toBe(0);
    expect((await readdir(folder)).sort()).toEqual(['Conversation 0.md', 'Conversation 1.md']);
    expect(await readFile(path.join(folder, 'Conversation 1.md'), 'utf8')).toMatch(
      /^# Conversation 1\n[^]*### Assistant · [^]*```ts\nconst x = 1;\n```/,
    );
  });
});
