/**
 * The command on PostgreSQL, as an operator moves to it: `serve` with DATABASE_URL keeps what it is
 * sent in the database (a second repository reads it back) and its start line names the database
 * without its password; an unreachable database ends `serve` with one line and exit 1, never a
 * quiet fallback to the folder; `store copy` moves a folder into PostgreSQL and back with every
 * answer the same, a second run writing nothing, and refuses a folder a running service holds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { expect, it, onTestFinished } from 'vitest';
import { createService } from '../../src/index.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { killedAfterEach } from '../helpers/process-groups.js';
import { tempDir } from '../helpers/temp-dir.js';
import { unusedPort } from '../helpers/unused-port.js';
import { runCli } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const {
  PORT: _port,
  HOST: _host,
  API_TOKEN: _token,
  DATA_DIR: _dataDir,
  DATABASE_URL: _url,
  DATABASE_SCHEMA: _schema,
  ...ENV
} = process.env;

const children = killedAfterEach();

/** Runs `serve --port 0` in `cwd` (through tsx's own binary: `--import tsx` would not resolve from a temp folder) with `env`; resolves with its start line once it listens, or its output and code once it exits. */
function startServe(
  cwd: string,
  env: Record<string, string>,
): Promise<{ line?: string; output: string; code?: number | null; child: ChildProcess }> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'adapters/cli/main.ts'), 'serve', '--port', '0'], {
    cwd,
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve neither listened nor exited within 30 s:\n${output}`)), 30_000);
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = /^Listening on .*$/m.exec(output)?.[0];
      if (line) {
        clearTimeout(timer);
        resolve({ line, output, child });
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ output, code, child });
    });
  });
}

it('serve with a DATABASE_URL nothing listens at says so in one line and exits 1, making no data folder', async () => {
  const cwd = await tempDir();
  const url = `postgres://me:s3cret-pw@127.0.0.1:${await unusedPort()}/app`;
  const serving = await startServe(cwd, { DATABASE_URL: url });
  expect(serving.line).toBeUndefined();
  expect(serving.code).toBe(1);
  const lines = serving.output.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^Cannot open PostgreSQL postgres:\/\/me@127\.0\.0\.1:\d+\/app, schema conversation_model_service: .*ECONNREFUSED/,
  );
  expect(serving.output).not.toContain('s3cret-pw');
  // No fallback: nothing was opened, or made, in the folder.
  expect(existsSync(path.join(cwd, 'data'))).toBe(false);
});

it('serve with a DATABASE_URL whose server accepts but never answers gives up after connect_timeout, in one line, exit 1', async () => {
  // A black hole: the connection is accepted, and nothing ever comes back.
  const sockets = new Set<Socket>();
  const hole = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => hole.close(() => resolve()));
  });
  const { port } = hole.address() as AddressInfo;
  const cwd = await tempDir();
  const started = Date.now();
  const serving = await startServe(cwd, { DATABASE_URL: `postgres://me@127.0.0.1:${port}/app?connect_timeout=1` });
  expect(serving.code, serving.output).toBe(1);
  // tsx's start included; without connect_timeout in the URL it waits 10 s (test/stores/postgres-pool.test.ts).
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(sockets.size).toBeGreaterThan(0);
  expect(serving.output.trim().split('\n')).toEqual([
    `Cannot open PostgreSQL postgres://me@127.0.0.1:${port}/app, schema conversation_model_service: no answer within 1 s of connecting (connect_timeout=1)`,
  ]);
  expect(existsSync(path.join(cwd, 'data'))).toBe(false);
});

describeWithPostgres('the command on PostgreSQL', (server) => {
  /** The test server's URL with a password in it: trust auth ignores it, and it must never be printed. */
  const withPassword = () => server().url.replace('postgres@', 'postgres:s3cret-pw@');

  it('serve with DATABASE_URL keeps what it is sent in the database, and its start line names it without the password', async () => {
    const cwd = await tempDir();
    const schema = freshSchema('serve');
    const serving = await startServe(cwd, { DATABASE_URL: withPassword(), DATABASE_SCHEMA: schema });
    expect(serving.line, serving.output).toMatch(
      new RegExp(
        `^Listening on http://127\\.0\\.0\\.1:\\d+ \\(data in PostgreSQL postgres://postgres@127\\.0\\.0\\.1:${server().port}/postgres, schema ${schema}; models in .+\\)$`,
      ),
    );
    expect(serving.output).not.toContain('s3cret-pw');
    const base = /http:\/\/127\.0\.0\.1:\d+/.exec(serving.line!)![0];
    const response = await fetch(`${base}/conversations/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'COPILOT', name: 'Kept in PostgreSQL' }),
    });
    expect(response.status).toBe(200);
    const { id } = (await response.json()) as { id: string };
    const repository = await createPostgresRepository({ connectionString: server().url }, { schema });
    try {
      const stored = await repository.read((view) => view.get('conversations', id));
      expect(stored).toMatchObject({ id, name: 'Kept in PostgreSQL' });
    } finally {
      await repository.close();
    }
  });

  it('store copy moves a folder into PostgreSQL and back with the same answers; a second run writes nothing', async () => {
    const original = await tempDir();
    const back = path.join(await tempDir(), 'back');
    const schema = freshSchema('copy');
    const seeded = await createService({ dataDir: original });
    const conversation = await seeded.createConversation({ type: 'COPILOT', name: 'Moving' });
    await seeded.createMessage({
      role: 'USER',
      fragment: { string: { raw: 'first, with \u0000 in it' } },
      conversation: { id: conversation.id },
    });
    await seeded.createMessage({ role: 'ASSISTANT', fragment: { string: { raw: 'second' } }, conversation: { id: conversation.id } });
    await seeded.createAnnotation({ type: 'COMMENT', text: 'Worth a look.', conversation: conversation.id });
    const before = await seeded.getConversationJson(conversation.id);

    // The folder a running service holds is refused, through its lock.
    const locked = await runCli(['store', 'copy', '--from', original, '--to', withPassword(), '--to-schema', schema]);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/^The data folder .* is in use by .*\n$/);
    await seeded.close();

    const up = await runCli(['store', 'copy', '--from', original, '--to', withPassword(), '--to-schema', schema]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^conversations: 1 written, 0 unchanged$/m);
    expect(up.stdout).toMatch(/^messages: 2 written, 0 unchanged$/m);
    expect(up.stdout).toMatch(
      new RegExp(
        `^Copied \\d+ records from ${original} to PostgreSQL postgres://postgres@127\\.0\\.0\\.1:\\d+/postgres, schema ${schema}: \\d+ written, 0 unchanged\\.$`,
        'm',
      ),
    );
    expect(up.stdout + up.stderr).not.toContain('s3cret-pw');

    const again = await runCli(['store', 'copy', '--from', original, '--to', server().url, '--to-schema', schema]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/: 0 written, \d+ unchanged\.$/m);
    expect(again.stdout).not.toMatch(/: [1-9]\d* written/);

    // A schema that holds no store is no source: refused, and neither it nor the target is made.
    const nowhere = path.join(await tempDir(), 'nowhere');
    const missing = await runCli(['store', 'copy', '--from', server().url, '--from-schema', 'nosuch', '--to', nowhere]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(
      `Cannot open PostgreSQL postgres://postgres@127.0.0.1:${server().port}/postgres, schema nosuch: The PostgreSQL schema "nosuch" holds no conversation-model-service store.\n`,
    );
    expect(existsSync(nowhere)).toBe(false);
    const probe = await createPostgresRepository({ connectionString: server().url }, { schema: 'nosuch', mustExist: true }).catch(
      (error: unknown) => error,
    );
    expect(probe).toMatchObject({ code: 'NOT_FOUND' });
    const admin = new pg.Client({ connectionString: server().url });
    await admin.connect();
    try {
      expect((await admin.query("SELECT nspname FROM pg_namespace WHERE nspname = 'nosuch'")).rows).toEqual([]);
    } finally {
      await admin.end();
    }

    const down = await runCli(['store', 'copy', '--from', server().url, '--from-schema', schema, '--to', back]);
    expect(down.code, down.stderr).toBe(0);
    const restored = await createService({ dataDir: back });
    try {
      expect(await restored.getConversationJson(conversation.id)).toBe(before);
    } finally {
      await restored.close();
    }
  });
});
