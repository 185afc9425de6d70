/**
 * The sources compiled to JavaScript once per test run, for the processes the tests start.
 *
 * A process started as `node --import tsx x.ts` spends about half a second of CPU in tsx's module
 * hooks before it runs a line (the command's `--help`: 0.7 s of CPU through tsx, 0.2 s compiled),
 * and a GGUF runner twice that: node-llama-cpp forks a process of its own to try its binary, which
 * inherits tsx. The suite starts some hundred such processes. So test/global-setup.ts compiles
 * `src/`, `adapters/` and the non-test files of `test/` here, file by file, with esbuild (what tsx
 * compiles them with): the same modules, at the same paths under one folder, compiled from the
 * working tree as it is when the run starts. The folder lies in the run's temp folder, with a link
 * to this repository's node_modules (the compiled modules import the same packages) and a
 * package.json that makes `.js` ESM. Tests start `node <compiledScript('adapters/cli/main.ts')>`.
 *
 * What stays on tsx: what a user runs through tsx (the examples, the docs' snippets) and the tests
 * of running from the sources (a GGUF runner found beside `llama-cpp.ts`).
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Names the folder of the compiled sources (set by test/global-setup.ts, inherited by the test files' processes). */
export const COMPILED_SOURCES = 'CMS_TEST_COMPILED_SOURCES';
const FOLDERS = ['src', 'adapters', 'test'];

/** Compiles the sources into `folder` (made here); answers how many files. */
export async function compileSources(folder: string): Promise<number> {
  const files = FOLDERS.flatMap((top) =>
    readdirSync(path.join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('.test.ts'))
      .map((file) => path.join(ROOT, top, file)),
  );
  mkdirSync(folder, { recursive: true });
  await build({
    entryPoints: files,
    outdir: folder,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'));
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  return files.length;
}

/**
 * The compiled JavaScript of `source`, a `.ts` file of this repository given by its path from the
 * root (`adapters/cli/main.ts`), or by its absolute path.
 */
export function compiledScript(source: string): string {
  const folder = process.env[COMPILED_SOURCES];
  if (!folder) throw new Error(`${COMPILED_SOURCES} is not set: the sources are compiled by test/global-setup.ts, which vitest runs.`);
  const relative = path.relative(ROOT, path.resolve(ROOT, source));
  if (relative.startsWith('..') || !relative.endsWith('.ts')) throw new Error(`Not a .ts file of this repository: ${source}`);
  return path.join(folder, relative.replace(/\.ts$/, '.js'));
}
