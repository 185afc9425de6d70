/**
 * `backup --out DIR` against a running server (the command's own `serve`, with an API_TOKEN): the
 * server writes the backup into its data folder, the command moves it to --out, and nothing is
 * left in the data folder; the backup serves the same conversations. With --data-dir and no
 * server holding it, the command backs the folder up itself; an --out that holds files is refused.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backup } from '../../adapters/cli/backup.js';
import { CommandFailure } from '../../adapters/cli/failures.js';
import { createService } from '../../src/index.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

const TOKEN = 'cli-backup-token';
let server: ServeProcess;
let dataDir: string;
let names: string[];

async function create(name: string): Promise<void> {
  const response = await fetch(`${server.url}/conversations/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'COPILOT', name, messages: [said('USER', `About ${name}`)] }),
  });
  expect(response.status).toBe(200);
}

/** The names of the conversations a data folder holds, opened as `serve --data-dir` opens it. */
async function conversationsIn(folder: string): Promise<string[]> {
  const service = await createService({ dataDir: folder, logger: { warn: () => undefined } });
  try {
    return (await service.listConversations()).iterable.map((conversation) => conversation.name ?? '');
  } finally {
    await service.close();
  }
}

beforeAll(async () => {
  dataDir = await tempDir('cms-backup-cli-');
  server = await startServeProcess(dataDir, { API_TOKEN: TOKEN, PORT: '', HOST: '' });
  names = ['Garden plans', 'Bicycle chain', 'Kitchen shelves'];
  for (const name of names) await create(name);
});
afterAll(() => server?.kill());

describe('backup', () => {
  it('asks the running server, moves its backup to --out, and leaves nothing in the data folder', async () => {
    const out = path.join(await tempDir('cms-backup-out-'), 'nested', 'backup');
    // With --data-dir too: the server holds its lock, so the server writes it.
    const run = await runCli(['backup', '--out', out, '--url', server.url, '--data-dir', dataDir], { API_TOKEN: TOKEN });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Backed up the server at ${server.url} to ${out} \\(\\d+ files, .+\\)\\.\\n$`));
    expect(existsSync(path.join(dataDir, 'backups'))).toBe(false);
    expect(await readdir(out)).not.toContain('db.json.lock');
    expect((await conversationsIn(out)).sort()).toEqual([...names].sort());
  });

  it('refuses an --out that holds files, before asking the server', async () => {
    const out = await tempDir('cms-backup-out-');
    await writeFile(path.join(out, 'mine.txt'), 'keep');
    // The command's own code, in this process: the refusal comes before any request.
    const run = backup.run({ strings: { out, url: server.url }, flags: new Set(), positionals: [] });
    await expect(run).rejects.toThrow(CommandFailure);
    await expect(run).rejects.toThrow(/already exists and is not an empty folder/);
    expect(await readdir(out)).toEqual(['mine.txt']);
    expect(existsSync(path.join(dataDir, 'backups'))).toBe(false);
  });

  it('backs up a data folder no server holds by itself', async () => {
    const folder = await tempDir('cms-backup-idle-');
    const service = await createService({ dataDir: folder, logger: { warn: () => undefined } });
    await service.createConversation({ type: 'COPILOT', name: 'Idle folder' });
    await service.close();
    const out = path.join(await tempDir('cms-backup-out-'), 'copy');
    await mkdir(out);
    // No server at this address: the command must not need one.
    const run = await runCli(['backup', '--out', out, '--data-dir', folder, '--url', 'http://127.0.0.1:9']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^Backed up the data folder ${folder} to ${out} `));
    expect(await conversationsIn(out)).toEqual(['Idle folder']);
    expect(await readdir(folder)).not.toContain('backups');
  });
});
