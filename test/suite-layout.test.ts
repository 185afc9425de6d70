/**
 * The split of the suite (vitest.config.ts) holds: a test file that starts a process — it imports
 * node:child_process, Playwright, the serve-process helper or the llama-cpp runtime (whose models
 * run in runner processes) — is in the `process` project (test/process-tests.ts), so the `unit`
 * project starts none; and every name listed there is a test file.
 *
 * No test is skipped silently: a test is skipped only through `needs(reason)`
 * (test/helpers/requirements.ts), whose reason the end of the run prints, or `ctx.skip(note)`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROCESS_TESTS } from './process-tests.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Imports (static, at the start of a line, or dynamic) of what starts processes. */
const STARTS_PROCESSES = [
  /^import [^;]*from 'node:child_process';|import\('node:child_process'\)/m,
  /^import [^;]*from 'playwright-core';|import\('playwright-core'\)/m,
  /^import [^;]*from '[./]+\/helpers\/serve-process\.js';/m,
  /^import [^;]*from '[./]+\/src\/runtimes\/(llama-cpp|runner-process)\.js';/m,
];

/** Ways to skip a test, or to leave tests out, that carry no written reason. */
const SILENT_SKIPS = [
  /\b(?:describe|suite|it|test|bench)(?:\.\w+)*\.(?:skip|skipIf|runIf|todo|only)\b/,
  /\.skip\(\s*\)/, // ctx.skip() with no note
];

async function testFiles(suffix = '.test.ts'): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, 'test'), { recursive: true });
  return entries
    .filter((entry) => entry.endsWith(suffix))
    .map((entry) => `test/${entry.split(path.sep).join('/')}`)
    .sort();
}

it('puts every test file that starts a process in the process project, and lists only test files there', async () => {
  const files = await testFiles();
  const starting: string[] = [];
  for (const file of files) {
    const source = await readFile(path.join(ROOT, file), 'utf8');
    if (STARTS_PROCESSES.some((pattern) => pattern.test(source))) starting.push(file);
  }
  expect(starting.length).toBeGreaterThan(10);
  expect(
    starting.filter((file) => !PROCESS_TESTS.includes(file)),
    'start processes: list them in test/process-tests.ts',
  ).toEqual([]);
  expect(
    PROCESS_TESTS.filter((file) => !files.includes(file)),
    'listed in test/process-tests.ts, but no such test file',
  ).toEqual([]);
});

it('skips no test without a written reason', async () => {
  const found: string[] = [];
  // This file names the patterns; comments may name them too.
  for (const file of (await testFiles('.ts')).filter((file) => file !== 'test/suite-layout.test.ts')) {
    const lines = (await readFile(path.join(ROOT, file), 'utf8')).split('\n');
    lines.forEach((line, index) => {
      const comment = /^\s*(\*|\/\/|\/\*)/.test(line);
      if (!comment && SILENT_SKIPS.some((pattern) => pattern.test(line))) found.push(`${file}:${index + 1}: ${line.trim()}`);
    });
  }
  expect(found, 'skip through needs(reason) (test/helpers/requirements.ts), or ctx.skip(note)').toEqual([]);
});

it('finds a silent skip where there is one', () => {
  // The examples are joined at run time, so that no line of this file is itself a skip, a todo or
  // an `.only` to tools that scan test files for them.
  const dot = (...parts: string[]) => parts.join('.');
  for (const line of [
    `${dot('describe', 'skipIf')}(!onLinux)('x', () => {`,
    `${dot('it', 'skip')}('x', () => {`,
    `${dot('test', 'todo')}('x');`,
    `${dot('describe', 'only')}(`,
    'ctx.skip();',
  ]) {
    expect(
      SILENT_SKIPS.some((pattern) => pattern.test(line)),
      line,
    ).toBe(true);
  }
  for (const line of ["describe('x', needs(unmet(CHROMIUM)), () => {", "ctx.skip('no GPU here');", 'expect(answer.skipped).toEqual([]);']) {
    expect(
      SILENT_SKIPS.some((pattern) => pattern.test(line)),
      line,
    ).toBe(false);
  }
});
