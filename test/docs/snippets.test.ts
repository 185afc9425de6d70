/**
 * The docs' code runs as written. Every ```ts and ```js block of README.md and of every page under
 * docs/ is copied, unchanged, into a file of its own in one scratch project, where
 * `conversation-model-service` (and each of its subpath exports) is this package as
 * `npm run build` makes it (built here from the sources with the package's own tsup
 * configuration, JavaScript only, so a stale or missing `dist/` does not matter and the
 * repository's `dist/` is not touched), and the other packages the pages tell their readers to
 * install (`hono`, `@hono/node-server`, `vitest`) are this clone's. Then:
 *
 * - tsc type-checks every snippet of every page in one pass (against this package's sources: the
 *   declarations of `dist/` are made from them, and building them takes half a minute);
 * - each snippet runs, with tsx for TypeScript as a reader would run it, in a folder of its own:
 *   - a script must exit 0;
 *   - a server (it prints `Listening on http://…`) gets `PORT=0`, is asked what its snippet serves,
 *     then stopped with SIGTERM, which must end it;
 *   - a test file (its first line says `// <name>.test.ts, run by vitest`) runs with vitest and
 *     must pass;
 *   - what a snippet imports from a file of the reader's own (`./my-store.js`) is one of
 *     {@link COMPANIONS}, and `electron`, not installed here, is a stand-in for Electron's `app`
 *     whose user quits as soon as the snippet listens for it ({@link ELECTRON}).
 *
 * There is no way to mark a snippet as a fragment that is not run: every snippet a reader can copy
 * must work.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const VITEST = path.join(ROOT, 'node_modules/.bin/vitest');
const TSC = path.join(ROOT, 'node_modules/.bin/tsc');
const PACKAGE = 'conversation-model-service';
/** A snippet's run: starting tsx or vitest on a busy 2-core machine takes seconds. */
const RUN_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// The snippets

interface Snippet {
  /** The page it is on, from the repository's root: `README.md`, `docs/search.md`. */
  readonly page: string;
  /** The page's line of its opening fence. */
  readonly line: number;
  /** The heading it is under, for names. */
  readonly section: string;
  readonly language: 'ts' | 'js';
  readonly code: string;
  /** The file it is written to: `snippet.ts`, or the name its first line gives. */
  readonly file: string;
  /** `node` (through tsx for TypeScript), or `vitest` for a test file. */
  readonly runner: 'node' | 'vitest';
}

const LANGUAGES: Record<string, 'ts' | 'js'> = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js' };

function snippetsOf(markdown: string, page: string): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  let section = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#+\s+(.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const fence = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`${page} line ${i + 1}: a code block that never ends`);
    const language = LANGUAGES[fence[1]!];
    if (language) {
      const code = `${lines.slice(i + 1, end).join('\n')}\n`;
      const named = /^\/\/ ([\w.-]+\.test\.[cm]?[jt]s), run by vitest/.exec(code);
      snippets.push({
        page,
        line: i + 1,
        section,
        language,
        code,
        file: named?.[1] ?? (language === 'ts' ? 'snippet.ts' : 'snippet.mjs'),
        runner: named ? 'vitest' : 'node',
      });
    }
    i = end;
  }
  return snippets;
}

/** The packages a snippet imports: bare specifiers, by package name (`@scope/name`). */
function packagesOf(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map(
    (match) => match[1] ?? match[2]!,
  );
  return [
    ...new Set(
      specifiers
        .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
        .map((specifier) =>
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    ),
  ];
}

const relativeImportsOf = (code: string) => [...code.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!);

/**
 * The reader's own files that snippets import, by the specifier they use: the smallest honest
 * version of each (the contract suite's "my store" is the package's memory repository).
 */
const COMPANIONS: Record<string, { file: string; code: string }> = {
  './my-store.js': {
    file: 'my-store.ts',
    code: `import { createMemoryRepository, type Repository } from '${PACKAGE}';

/** Opens the reader's store; here, the package's own memory repository. */
export async function createMyRepository(_options: { fresh: boolean }): Promise<Repository> {
  return createMemoryRepository();
}
`,
  },
};

/**
 * A stand-in for Electron (not installed here): the part of the main process's \`app\` that the
 * README uses, and a user who quits the app as soon as something listens for \`before-quit\`.
 * Quitting emits \`before-quit\`; a listener may \`preventDefault()\` it and call \`quit()\` again
 * later, as in Electron. It prints what happens, for the test to read.
 */
const ELECTRON = {
  'package.json': JSON.stringify({ name: 'electron', version: '0.0.0-stand-in', type: 'module', main: 'index.js', types: 'index.d.ts' }),
  'index.js': `import { EventEmitter } from 'node:events';
import path from 'node:path';

const events = new EventEmitter();
export const app = {
  getPath: (name) => path.resolve(\`electron-\${name}\`),
  on(event, listener) {
    events.on(event, listener);
    if (event === 'before-quit') setTimeout(() => app.quit(), 50);
    return app;
  },
  quit() {
    let prevented = false;
    events.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (prevented) return console.log('electron stand-in: quit deferred');
    console.log('electron stand-in: quit');
    setImmediate(() => process.exit(0));
  },
};
`,
  'index.d.ts': `export interface Event {
  preventDefault(): void;
}
export declare const app: {
  getPath(name: 'home' | 'appData' | 'userData' | 'sessionData' | 'temp' | 'logs'): string;
  on(event: 'before-quit', listener: (event: Event) => void): typeof app;
  quit(): void;
};
`,
};

// ---------------------------------------------------------------------------------------------
// The scratch project

interface Project {
  readonly folder: string;
  /** The folder of each snippet. */
  readonly dirs: ReadonlyMap<Snippet, string>;
}

/** A snippet's folder in the scratch project, named after its page and line: `snippets/docs-search-md-line-20`. */
const folderOf = (snippet: Snippet) => `snippets/${snippet.page.replace(/\W+/g, '-').toLowerCase()}-line-${snippet.line}`;

/** Builds the package into `into` (tsup, this repository's configuration, JavaScript only); answers tsup's entries. */
function buildPackage(into: string): Record<string, string> {
  const script = `
    const tsup = await import('tsup');
    const { default: config } = await import(${JSON.stringify(path.join(ROOT, 'tsup.config.ts'))});
    await tsup.build({ outDir: ${JSON.stringify(path.join(into, 'dist'))}, dts: false, sourcemap: false, silent: true });
    console.log(JSON.stringify(config.entry));
  `;
  const built = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: childEnv(),
  });
  if (built.status !== 0) throw new Error(`The build failed (${built.status ?? built.signal}):\n${built.stdout}\n${built.stderr}`);
  return JSON.parse(built.stdout.trim().split('\n').at(-1)!) as Record<string, string>;
}

/** The `paths` that make tsc read each export's source: `./dist/x.js` is tsup's entry `x`. */
function sourcePaths(exports: Record<string, { import?: string } | string>, entries: Record<string, string>): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(exports)) {
    const file = typeof target === 'string' ? target : target.import;
    const entry = file && /^\.\/dist\/(.+)\.js$/.exec(file)?.[1];
    if (!entry) continue;
    const source = entries[entry];
    if (!source) throw new Error(`The export ${subpath} (${file}) is no tsup entry`);
    paths[path.posix.join(PACKAGE, subpath)] = [path.join(ROOT, source)];
  }
  return paths;
}

async function makeProject(snippets: readonly Snippet[]): Promise<Project> {
  const folder = await tempDir('readme-snippets-');

  // The package: package.json, the built dist/, and its dependencies (this clone's).
  const pkg = path.join(folder, 'package');
  await mkdir(pkg);
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import?: string }> };
  const entries = buildPackage(pkg);
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify(manifest, null, 2));
  await symlink(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));

  // The reader's project: this package, what the pages say to install, electron's stand-in.
  const project = path.join(folder, 'project');
  const modules = path.join(project, 'node_modules');
  await mkdir(path.join(modules, '@types'), { recursive: true });
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'readme-reader', private: true, type: 'module' }));
  await symlink(pkg, path.join(modules, PACKAGE));
  await symlink(path.join(ROOT, 'node_modules/@types/node'), path.join(modules, '@types/node'));
  const installed = new Set([PACKAGE]);
  const install = async (name: string) => {
    if (installed.has(name)) return;
    installed.add(name);
    if (name === 'electron') {
      await mkdir(path.join(modules, 'electron'));
      for (const [file, text] of Object.entries(ELECTRON)) await writeFile(path.join(modules, 'electron', file), text);
      return;
    }
    const source = path.join(ROOT, 'node_modules', name);
    if (!existsSync(source)) throw new Error(`A page imports ${name}, which this clone does not have`);
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(source, path.join(modules, name));
  };
  for (const snippet of snippets) {
    for (const name of packagesOf(snippet.code)) await install(name);
    if (snippet.runner === 'vitest') await install('vitest');
  }

  const dirs = new Map<Snippet, string>();
  for (const snippet of snippets) {
    const dir = path.join(project, folderOf(snippet));
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, snippet.file), snippet.code);
    for (const specifier of relativeImportsOf(snippet.code)) {
      const companion = COMPANIONS[specifier];
      if (!companion) throw new Error(`${snippet.page} line ${snippet.line} imports ${specifier}: add the reader's file to COMPANIONS`);
      await writeFile(path.join(dir, companion.file), companion.code);
    }
    dirs.set(snippet, dir);
  }

  // tsc, with this repository's options, over the snippets (and their companions).
  const base = JSON.parse(await readFile(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: { ...base.compilerOptions, noEmit: true, types: ['node'], paths: sourcePaths(manifest.exports, entries) },
        include: ['snippets/*/*.ts', 'snippets/*/*.mjs'],
      },
      null,
      2,
    ),
  );
  return { folder: project, dirs };
}

// ---------------------------------------------------------------------------------------------
// Running them

/** This process's environment less vitest's own (a vitest started from here must not think it is a worker). */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST.*|__VITEST.*|TEST|NODE_ENV|FORCE_COLOR)$/.test(name)),
  );
  return { ...env, NO_COLOR: '1', ...extra };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** The address it printed in its `Listening on` line, if it serves. */
  serving?: string;
}

const describeRun = (run: Run) => `exit ${run.code} (${run.signal})\n--- output ---\n${run.output}`;

/**
 * Runs `command` in `cwd` in a process group of its own. Resolves when it exits, or, once it prints
 * `Listening on http://…`, after `serve(address)` has asked it what it serves and it has been
 * stopped with SIGTERM. Kills the group after {@link RUN_TIMEOUT_MS}.
 */
function run(command: string, args: string[], cwd: string, serve: (address: string) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv({ PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let serving: string | undefined;
    let failure: unknown;
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      failure = new Error(`No exit within ${RUN_TIMEOUT_MS} ms${serving ? ' (it was serving)' : ''}\n--- output ---\n${output}`);
    }, RUN_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const address = serving === undefined ? /Listening on (http:\/\/\S+?:(\d+))/.exec(output) : null;
      if (!address) return;
      serving = address[1]!;
      serve(serving)
        .catch((error: unknown) => (failure = error))
        .finally(() => stop(child));
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) reject(failure instanceof Error ? new Error(`${failure.message}\n--- output ---\n${output}`) : failure);
      else resolve({ code, signal, output, ...(serving ? { serving } : {}) });
    });
  });
}

/** SIGTERM to the group; SIGKILL if it is still there {@link STOP_TIMEOUT_MS} later. */
function stop(child: ChildProcess): void {
  signalGroup(child, 'SIGTERM');
  setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS).unref();
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** What a served snippet must answer, found by what it serves; one it does not recognise must answer something. */
async function askServer(snippet: Snippet, base: string): Promise<void> {
  const text = async (url: string, init?: RequestInit) => {
    const response = await fetch(base + url, init);
    return `${response.status} ${await response.text()}`;
  };
  const createIn = (prefix: string) =>
    text(`${prefix}/conversations/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'COPILOT', name: 'From the README' }),
    });
  if (snippet.code.includes("app.route('/pieces'")) {
    expect(await text('/health')).toBe('200 ok');
    expect(await createIn('/pieces')).toMatch(/^200 \{.*"name":"From the README"/);
    expect(await text('/pieces/.well-known/health')).toMatch(/^200 /);
  } else if (snippet.code.includes("req.url === '/hello'")) {
    expect(await text('/hello')).toBe('200 hi');
    expect(await createIn('')).toMatch(/^200 \{.*"name":"From the README"/);
  } else {
    expect(Number((await text('/')).split(' ')[0])).toBeLessThan(500);
  }
}

// ---------------------------------------------------------------------------------------------

/** README.md, then every page under docs/. */
const PAGES = [
  'README.md',
  ...(await readdir(path.join(ROOT, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const SNIPPETS = (await Promise.all(PAGES.map(async (page) => snippetsOf(await readFile(path.join(ROOT, page), 'utf8'), page)))).flat();
let project: Project;

beforeAll(async () => {
  project = await makeProject(SNIPPETS);
});

describe("the docs' snippets", () => {
  it('are found: every ts/js block of the README and of every page under docs/', () => {
    // The README's: in-process, Hono, node:http, Electron (at the time of writing).
    expect(SNIPPETS.filter((snippet) => snippet.page === 'README.md').length).toBeGreaterThanOrEqual(4);
    // The pages': search, a runtime, a custom model pulled, a backup, the contract suite, and more.
    expect(PAGES.length).toBeGreaterThanOrEqual(8);
    expect(SNIPPETS.length).toBeGreaterThanOrEqual(9);
  });

  it('type-check (tsc, strict, with this repository’s options)', () => {
    const checked = spawnSync(process.execPath, [TSC, '-p', path.join(project.folder, 'tsconfig.json')], {
      cwd: project.folder,
      encoding: 'utf8',
      timeout: 120_000,
    });
    // Only the snippets' own errors, each at its page's line: the sources are the repository's type check's to judge.
    const byFolder = new Map(SNIPPETS.map((snippet) => [folderOf(snippet), snippet]));
    const errors = checked.stdout
      .split('\n')
      .filter((line) => line.startsWith('snippets/'))
      .map((line) =>
        line.replace(/^(snippets\/[^/]+)\/[^(]+\((\d+),(\d+)\)/, (whole, folder: string, row: string) => {
          const snippet = byFolder.get(folder);
          return snippet ? `${snippet.page} line ${snippet.line + Number(row)}` : whole;
        }),
      );
    expect(errors).toEqual([]);
    // tsc ran to its end (its errors in the sources, if any, are not this test's).
    expect(checked.error).toBeUndefined();
    expect(checked.signal, checked.stderr).toBeNull();
  });

  for (const snippet of SNIPPETS) {
    const name = `runs as written: ${snippet.page} line ${snippet.line} (${snippet.section})`;
    it(name, async () => {
      const dir = project.dirs.get(snippet)!;
      const [command, args] =
        snippet.runner === 'vitest'
          ? [VITEST, ['run', snippet.file]]
          : snippet.language === 'ts'
            ? [TSX, [snippet.file]]
            : [process.execPath, [snippet.file]];
      const result = await run(command, args, dir, (address) => askServer(snippet, address));
      if (result.serving) {
        // Stopped by the test: SIGTERM ends it (tsx, passing the signal on, exits 143, 128 + SIGTERM).
        expect(result.signal === 'SIGTERM' || result.code === 143 || result.code === 0, describeRun(result)).toBe(true);
      } else {
        expect(result.code, describeRun(result)).toBe(0);
      }
      if (snippet.runner === 'vitest') {
        expect(result.output, describeRun(result)).toMatch(/Tests\s+(\S*\s)?\d+ passed/);
        expect(result.output).not.toMatch(/\d+ failed/);
      }
      if (packagesOf(snippet.code).includes('electron')) {
        // The user quit; the snippet deferred the quit until its service had closed, then quit.
        expect(result.output).toMatch(/quit deferred\n(.*\n)*electron stand-in: quit\n/);
        const data = path.join(dir, 'electron-userData', 'conversations');
        const files = await readdir(data);
        expect(files).toContain('db.json');
        expect(
          files.filter((file) => file.endsWith('.lock')),
          'the service closed: its lock is released',
        ).toEqual([]);
      }
    });
  }
});
