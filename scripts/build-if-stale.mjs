#!/usr/bin/env node
/**
 * `npm start`'s `prestart` and the package's `prepare`: builds `dist/` when it is missing or older
 * than the sources, and does nothing otherwise, so a start on a built clone costs the server's own
 * start (about a second) rather than a build (20 s and more, most of it the type declarations).
 *
 * Fresh means: every entry point `package.json` names (`bin`, `exports`) exists in `dist/`, and the
 * oldest of them is newer than every file under `src/` and `adapters/` and than `package.json`,
 * `tsconfig.json` and `tsup.config.ts` (a clone, a pull or an edit gives the files it writes the
 * current time). A stale `dist/` is rebuilt with `tsup`'s own configuration but JavaScript only:
 * the server needs no declarations.
 *
 * With `--declarations` (the `prepare` script), fresh also means every export's type declarations
 * exist, and a stale `dist/` is rebuilt whole, declarations included. npm runs `prepare` after
 * `npm install` and `npm ci` in a clone, before `npm pack` and `npm publish`, and when it installs
 * the package from git (in its clone, once it has installed the dev dependencies there), so
 * `npm install git+…` gives a built package; a fresh `dist/` is not built again (a git install
 * runs `prepare` twice: in the clone's own `npm install`, then before packing it; CI's `npm ci`
 * builds it once for its tests and its checks). `npm run build` always builds it afresh.
 *
 *   node scripts/build-if-stale.mjs                 builds JavaScript when stale; prints why on stderr
 *   node scripts/build-if-stale.mjs --declarations  builds JavaScript and declarations when either is stale
 *   node scripts/build-if-stale.mjs --check         answers 0 when fresh, 1 when stale; builds nothing
 *                                                   (with --declarations: the declarations count too)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FOLDERS = ['src', 'adapters'];
const SOURCE_FILES = ['package.json', 'tsconfig.json', 'tsup.config.ts'];
const DECLARATIONS = process.argv.includes('--declarations');

/**
 * The files in `dist/` that `package.json` points at: the command and each export's module, and
 * with `withTypes` each export's declarations too.
 */
function entryPoints(withTypes) {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const targets = [];
  const collect = (value) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') {
      for (const [condition, inner] of Object.entries(value)) if (withTypes || condition !== 'types') collect(inner);
    }
  };
  collect(typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {}));
  collect(manifest.exports);
  const dist = path.join(ROOT, 'dist') + path.sep;
  return [...new Set(targets.map((target) => path.resolve(ROOT, target)))].filter((file) => file.startsWith(dist));
}

/** The newest modification time among `folder`'s files, and that file. */
function newestIn(folder, newest = { mtimeMs: 0, file: '' }) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const entry of entries) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) newest = newestIn(file, newest);
    else if (entry.isFile()) {
      const { mtimeMs } = statSync(file);
      if (mtimeMs > newest.mtimeMs) newest = { mtimeMs, file };
    }
  }
  return newest;
}

/** Why `dist/` must be rebuilt, or undefined when it is fresh. */
function staleness() {
  const outputs = entryPoints(DECLARATIONS);
  const missing = outputs.find((file) => !existsSync(file));
  if (outputs.length === 0 || missing) return `${path.relative(ROOT, missing ?? path.join(ROOT, 'dist'))} is missing`;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  let newest = { mtimeMs: 0, file: '' };
  for (const folder of SOURCE_FOLDERS) newest = newestIn(path.join(ROOT, folder), newest);
  for (const name of SOURCE_FILES) {
    const file = path.join(ROOT, name);
    const mtimeMs = existsSync(file) ? statSync(file).mtimeMs : 0;
    if (mtimeMs > newest.mtimeMs) newest = { mtimeMs, file };
  }
  return newest.mtimeMs > built ? `${path.relative(ROOT, newest.file)} changed since the last build` : undefined;
}

async function main() {
  const reason = staleness();
  if (process.argv.includes('--check')) {
    if (reason) console.error(`dist/ is stale: ${reason}.`);
    process.exitCode = reason ? 1 : 0;
    return;
  }
  if (!reason) return;
  let tsup;
  try {
    tsup = await import('tsup');
  } catch {
    console.error(`dist/ must be built (${reason}), but tsup is not installed: run \`npm install\` (dev dependencies included) first.`);
    process.exit(1);
  }
  console.error(
    DECLARATIONS
      ? `Building dist/ (${reason}), with its type declarations.`
      : `Building dist/ (${reason}): JavaScript only; \`npm run build\` adds the type declarations.`,
  );
  const started = performance.now();
  // tsup reads tsup.config.ts from the working folder; these options win over it (its own `dts: true` stands with --declarations).
  process.chdir(ROOT);
  try {
    await tsup.build(DECLARATIONS ? { silent: true } : { dts: false, silent: true });
  } catch (error) {
    console.error(`The build failed: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
  console.error(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

await main();
