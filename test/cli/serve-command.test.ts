/**
 * `serve` as a user starts it from a folder of their own: its start line names the data folder by
 * its full path (the default `data` too), and a data folder whose lock another machine holds is
 * refused with a message that names only flags `serve` has (`--take-over-lock`, which its help
 * shows), and that flag takes the folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serve } from '../../adapters/cli/serve.js';
import { killedAfterEach } from '../helpers/process-groups.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = path.join(ROOT, 'adapters/cli/main.ts');
/** Where a server is and what token it takes: none of the developer's own, and no DATA_DIR (the default is under test). */
const { PORT: _port, HOST: _host, API_TOKEN: _token, DATA_DIR: _dataDir, ...ENV } = process.env;

const children = killedAfterEach();

interface Serving {
  readonly child: ChildProcess;
  /** The first line it printed once listening, or its whole output when it exited first. */
  readonly line: string;
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>;
  output(): string;
}

/** Runs `serve --port 0 <args>` in `cwd`; resolves once it listens or exits (within 30 s). */
function startServe(cwd: string, args: string[] = []): Promise<Serving> {
  const child = spawn(TSX, [CLI, 'serve', '--port', '0', ...args], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve neither listened nor exited within 30 s:\n${out}`)), 30_000);
    const settle = (line: string) => {
      clearTimeout(timer);
      resolve({ child, line, exited, output: () => out });
    };
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const listening = /^Listening on .*$/m.exec(out)?.[0];
      if (listening) settle(listening);
    });
    void exited.then(() => settle(out));
  });
}

/** The data folder a start line names: `Listening on http://127.0.0.1:<port> (data in <folder>)`. */
function dataFolderOf(line: string): string | undefined {
  return /^Listening on http:\/\/127\.0\.0\.1:\d+ \(data in (.+)\)$/.exec(line)?.[1];
}

/** Stops a server with SIGTERM; answers its exit code. */
async function stop(serving: Serving): Promise<number | null> {
  serving.child.kill('SIGTERM');
  return serving.exited;
}

/** A lock in `folder` written by a process of another machine: one this machine cannot tell is gone. */
async function lockFromAnotherMachine(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  const lockFile = path.join(folder, 'db.json.lock');
  await writeFile(lockFile, JSON.stringify({ pid: 4242, hostname: 'another-machine', since: '2026-01-31T10:00:00.000Z', token: 'theirs' }));
  return lockFile;
}

describe('serve', () => {
  it('names the data folder by its full path when it starts: the default one, and one given as a relative path', async () => {
    const cwd = realpathSync(await tempDir());
    const byDefault = await startServe(cwd);
    expect(dataFolderOf(byDefault.line), byDefault.output()).toBe(path.join(cwd, 'data'));
    expect(await stop(byDefault)).toBe(0);

    const relative = await startServe(cwd, ['--data-dir', 'here/conversations']);
    expect(dataFolderOf(relative.line), relative.output()).toBe(path.join(cwd, 'here', 'conversations'));
    expect(await stop(relative)).toBe(0);
  });

  it('refuses a data folder another machine holds, naming --take-over-lock, which takes it', async () => {
    const cwd = realpathSync(await tempDir());
    const folder = path.join(cwd, 'data');
    const lockFile = await lockFromAnotherMachine(folder);

    const refused = await startServe(cwd);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toBe(
      `The data folder ${folder} is in use by process 4242 on another-machine (since 2026-01-31T10:00:00.000Z). ` +
        'Stop that process, or serve another folder with --data-dir. ' +
        'If you know nothing else uses it (a lock left by another machine, say), start again with --take-over-lock.\n',
    );
    // Every flag the message names is one serve takes; the library's option name is not one.
    const named = [...refused.output().matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const flag of named) expect(Object.keys(serve.flags!)).toContain(flag);
    expect(refused.output()).not.toMatch(/takeOverLock/);
    expect(JSON.parse(await readFile(lockFile, 'utf8')).hostname).toBe('another-machine');

    const taken = await startServe(cwd, ['--take-over-lock']);
    expect(dataFolderOf(taken.line), taken.output()).toBe(folder);
    const holder = JSON.parse(await readFile(lockFile, 'utf8')) as { hostname: string; pid: number };
    expect(holder.hostname).toBe(hostname());
    expect(await stop(taken)).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });

  it('shows --take-over-lock in its help, with when to use it', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/serve \[--port N\] \[--host H\] \[--data-dir DIR\] \[--log-requests\] \[--take-over-lock\]/);
    expect(help.stdout).toMatch(/^ {6}--take-over-lock +takes the data folder whoever holds its lock/m);
    expect(help.stdout).toMatch(/--take-over-lock is only for when you know nothing else\ndoes/);
  });
});
