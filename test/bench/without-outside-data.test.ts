/**
 * The benchmarks from a clone alone: without the data kept outside the repository (the developer
 * chats, DialogSum), `npm run bench`, `npm run bench:attacks` and `npm run bench:quality` skip what
 * needs it, each with one line saying which file is missing and what to provide, and exit 0; no
 * ENOENT. Likewise `npm run bench:postgres` and its section of `npm run bench` without PostgreSQL's
 * binaries (BENCH_PG_BIN names a folder without them). `npm run bench` runs only its plan and
 * those sections here (BENCH_SKIP leaves out the ones that take minutes): a few seconds.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm run <args>` in this clone with `env` added; its exit code and output, within 60 s. */
function npmRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '--silent', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm run ${args.join(' ')} did not end within 60 s:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it('skips the sections that need data kept outside the repository, saying what to provide, and exits 0', async () => {
  const missing = path.join(await tempDir(), 'shared', 'data', 'devchats', 'dev.jsonl');
  const dialogues = path.join(path.dirname(missing), 'dialogsum.jsonl');
  const noPostgres = path.join(path.dirname(missing), 'no-postgresql-here');
  const env = { SEARCH_DEVCHATS: missing, BENCH_SKIP: 'stores,open,index-size,streams,transfer', BENCH_PG_BIN: noPostgres };
  const [bench, attacks, quality, postgres] = await Promise.all([
    npmRun(['bench'], env),
    npmRun(['bench:attacks'], env),
    npmRun(['bench:quality', '--', '--file', dialogues], env),
    npmRun(['bench:postgres'], env),
  ]);

  expect(bench.code, bench.stderr).toBe(0);
  const lines = bench.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/^npm run bench: 11 sections, about .+ in all/);
  expect(lines).toContain(`  [6/11] search, and FTS5 beside it (bench/search.ts): skipped, no developer chats at ${missing}`);
  const searchLine = lines.find((line) => line.startsWith('[6/11] search'));
  expect(searchLine).toContain(`skipped, no developer chats at ${missing}. Provide `);
  expect(searchLine).toContain('../shared/data/devchats/dev.jsonl');
  expect(lines.find((line) => line.startsWith('[7/11] attacks'))).toContain(`skipped, no developer chats at ${missing}. Provide `);
  const noPostgresLine = `skipped, PostgreSQL's binaries are not in ${noPostgres} (no initdb there)`;
  expect(lines).toContain(`  [9/11] PostgreSQL beside the JSON-file store (bench/postgres.ts): ${noPostgresLine}`);
  expect(lines).toContain(
    `[9/11] PostgreSQL beside the JSON-file store (bench/postgres.ts): ${noPostgresLine}. Install PostgreSQL (apt-get install postgresql), or name its binaries' folder with BENCH_PG_BIN=<folder>.`,
  );
  expect(lines.at(-1)).toBe('npm run bench: done in 0 s.');

  expect(attacks.code, attacks.stderr).toBe(0);
  const attacksLines = attacks.stderr.trim().split('\n');
  expect(attacksLines).toHaveLength(1);
  expect(attacksLines[0]!.startsWith(`bench:attacks: skipped, no developer chats at ${missing}. Provide `), attacksLines[0]).toBe(true);
  expect(attacks.stdout).toBe('');

  expect(quality.code, quality.stderr).toBe(0);
  const qualityLine = quality.stderr.trim();
  expect(qualityLine.startsWith(`--file: skipped, no DialogSum dialogues at ${dialogues}. Provide `), qualityLine).toBe(true);
  expect(qualityLine).toContain('github.com/cylnlp/dialogsum');

  // Without PostgreSQL's binaries, bench:postgres says so in one line and what to provide.
  expect(postgres.code, postgres.stderr).toBe(0);
  expect(postgres.stderr.trim()).toBe(
    `bench:postgres: ${noPostgresLine}. Install PostgreSQL (apt-get install postgresql), or name its binaries' folder with BENCH_PG_BIN=<folder>.`,
  );
  expect(postgres.stdout).toBe('');

  for (const run of [bench, attacks, quality, postgres]) expect(run.stderr).not.toContain('ENOENT');
});
