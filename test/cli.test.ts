/**
 * The command line, run as a user runs it: `--version`, `--help`, `serve` on a free port, `models
 * list` against it, clear messages for a port and a data folder in use, and a graceful stop on
 * SIGINT that releases the data folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVICE_VERSION } from '../src/index.js';
import { killedAfterEach } from './helpers/process-groups.js';
import { tempDir } from './helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = 'adapters/cli/main.ts';
const children = killedAfterEach();

/** Runs the CLI to its end (bounded); answers its exit code and output. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => reject(new Error(`no exit within 20 s:\n${out}`)), 20_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Starts `serve`; resolves with the child and its URL once it listens. */
function serve(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [CLI, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not listening within 20 s:\n${out}`)), 20_000);
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => out });
      }
    });
  });
}

describe('conversation-model-service (the CLI)', () => {
  it('answers --version and --help (test/cli/usage.test.ts checks every command and every wrong line)', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, out: expect.stringContaining(SERVICE_VERSION) });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^ {2}serve /m);
    expect(help.out).toMatch(/^ {2}models list /m);
    const serveHelp = await run(['serve', '--help']);
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.out).toMatch(/serve \[--port N\] \[--host H\] \[--data-dir DIR\]/);
  });

  it('serves, lists models, refuses a port and a data folder in use, and stops gracefully on SIGINT', async () => {
    const dataDir = await tempDir();
    const server = await serve(['--port', '0', '--data-dir', dataDir]);
    const listed = await run(['models', 'list', '--url', server.url]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/extractive-summarizer/);

    const port = new URL(server.url).port;
    const portInUse = await run(['serve', '--port', port, '--data-dir', await tempDir()]);
    expect(portInUse).toMatchObject({ code: 1, out: expect.stringMatching(new RegExp(`Port ${port} .* is in use`)) });
    const folderInUse = await run(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(folderInUse).toMatchObject({ code: 1, out: expect.stringMatching(/data folder .* is in use/) });

    const exited = new Promise<number | null>((resolve) => server.child.once('close', resolve));
    server.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(server.output()).toMatch(/SIGINT: finishing the requests under way/);
    // The lock is released: the folder opens again.
    const again = await serve(['--port', '0', '--data-dir', dataDir]);
    again.child.kill('SIGTERM');
  });
});
