/**
 * The examples run as their users would run them (tsx, from source) and exit 0 with the output
 * they promise. The example server is exercised by the conformance suite.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const RUN_TIMEOUT_MS = 30_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `tsx <script>`; kills it (and what tsx started) if it has not exited within the timeout. */
function runExample(script: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      reject(new Error(`${script} did not exit within ${RUN_TIMEOUT_MS} ms\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const describeRun = (run: Run) => `exit ${run.code} (${run.signal})\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;

describe('examples', () => {
  it('in-process.ts creates, renames, summarizes, links and reads back a conversation, then exits 0', async () => {
    const run = await runExample('examples/in-process.ts');
    expect(run.code, describeRun(run)).toBe(0);

    const created = /Created conversation (\S+) with 3 messages/.exec(run.stdout);
    expect(created, describeRun(run)).not.toBeNull();
    const renamed = /^Renamed to: (.+)$/m.exec(run.stdout);
    expect(renamed?.[1]?.trim(), describeRun(run)).toBeTruthy();
    // The name it read back is the name rename gave it.
    expect(run.stdout).toContain(`Read back: "${renamed![1]}", 3 messages, 1 website(s)`);
    expect(run.stdout).toMatch(/^Summary annotation: \S+$/m);
    expect(run.stdout).toMatch(/^Summary \(SUMMARY\): \S.*$/m);
    expect(run.stdout).toContain('Message texts included without transferables: 0');
    expect(run.stdout).toMatch(/^Model: .+ \(\w+, custom: false\)$/m);
    expect(run.stdout).toContain('Unknown conversation: NOT_FOUND');
  });

  it('mount-in-hono.ts with EXAMPLE_SELF_TEST=1 answers its own route and the mounted ones, then exits 0', async () => {
    const run = await runExample('examples/mount-in-hono.ts', { EXAMPLE_SELF_TEST: '1' });
    expect(run.code, describeRun(run)).toBe(0);

    expect(run.stdout).toMatch(/Listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(run.stdout).toContain('GET /health -> 200 {"ok":true}');
    expect(run.stdout).toContain('POST /pieces/conversations/create -> 200 "Mounted conversation"');
    expect(run.stdout).toContain('GET /pieces/conversation/{id} -> 200 "Mounted conversation"');
    expect(run.stdout).toMatch(/GET \/pieces\/models -> 200 \S/);
    // The router's own error funnel still shapes errors when mounted.
    expect(run.stdout).toMatch(/GET \/pieces\/conversation\/no-such-id -> 410 \{"error":\{"code":"NOT_FOUND"/);
  });

  it('node-http.ts with EXAMPLE_SELF_TEST=1 serves its own route and the service from one node:http server, then exits 0', async () => {
    const run = await runExample('examples/node-http.ts', { EXAMPLE_SELF_TEST: '1' });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain('GET /hello -> 200 hello from the host program');
    expect(run.stdout).toContain('POST /conversations/create -> 200 "Served by node:http"');
    expect(run.stdout).toContain('GET /.well-known/health -> 200 ok');
  });

  it('server.ts with a PORT that is not a port says so in one line and exits 1', async () => {
    const run = await runExample('examples/server.ts', { PORT: 'abc', DATA_DIR: await tempDir() });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr.trim()).toBe('PORT must be a port number from 0 to 65535, not "abc"');
  });
});
