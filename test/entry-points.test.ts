/**
 * Light entry points: importing the package loads neither the JSON-file store (lowdb, the journal,
 * the message files) nor the extractive summarizer; `createService` loads each only when it uses
 * it as a default. Each case runs in a fresh node process (run on the sources through tsx) with a
 * module hook that records every module loaded, so nothing loaded by this test file counts.
 * test/package.test.ts checks the same on the built, installed package.
 *
 * And the docs page without its optional dependency, `swagger-ui-dist` (simulated here: the
 * package test installs with `--omit=optional`): 501 and a message that says how to install it.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import type * as NodeModule from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createHonoRouter } from '../adapters/hono/index.js';
import { createService } from '../src/index.js';
import { tempDir } from './helpers/temp-dir.js';

// The docs page finds swagger-ui-dist with createRequire(...).resolve: here it is not installed.
vi.mock('node:module', async (importOriginal) => {
  const actual = await importOriginal<typeof NodeModule>();
  const createRequire = (from: string | URL) => {
    const require = actual.createRequire(from);
    const resolve = (id: string, options?: { paths?: string[] }) => {
      if (id === 'swagger-ui-dist' || id.startsWith('swagger-ui-dist/')) {
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      }
      return require.resolve(id, options);
    };
    return Object.assign((id: string) => require(id), require, { resolve });
  };
  return { ...actual, default: { ...actual, createRequire }, createRequire };
});

const ROOT = path.resolve(import.meta.dirname, '..');
let folder: string;

/** A hook that appends the URL of every module loaded to the file named by $LOAD_TRACE. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LOAD_TRACE, url + '\\n');
  return nextLoad(url, context);
}
`;
const REGISTER = "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n";

/** The scenarios, run one per process: `node child.mjs <scenario>`. */
const CHILD = `const [scenario, root, dataDir] = process.argv.slice(2);
const src = (file) => new URL(file, root).href;
const { createService, createMemoryRepository } = await import(src('src/index.ts'));
const summarizer = {
  model: { id: 'own', name: 'Own', version: '1', description: 'The caller’s own.', usage: 'CODE_DESCRIPTION', type: 'SPEED' },
  title: async () => 'Own title',
  summarize: async () => 'Own summary.',
  isLoaded: () => false,
  unload: async () => {},
};
let service;
if (scenario === 'adapter') await import(src('adapters/hono/index.ts'));
if (scenario === 'own') service = await createService({ dataDir, repository: createMemoryRepository(), summarizer });
if (scenario === 'defaults') service = await createService();
if (scenario === 'data-dir') service = await createService({ dataDir });
if (service) {
  const conversation = await service.createConversation({ type: 'COPILOT', name: 'Light' });
  console.log((await service.getConversation(conversation.id)).name);
  await service.close();
}
`;

/** The modules a scenario loaded: this repository's files by their path, packages by their name, builtins as `node:x`. */
async function loaded(scenario: string): Promise<string[]> {
  const trace = path.join(folder, `${scenario}.trace`);
  const dataDir = path.join(folder, `${scenario}-data`);
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      pathToFileURL(path.join(folder, 'register.mjs')).href,
      path.join(folder, 'child.mjs'),
      scenario,
      pathToFileURL(`${ROOT}/`).href,
      dataDir,
    ],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, env: { ...process.env, LOAD_TRACE: trace } },
  );
  const urls = (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
  const rootUrl = pathToFileURL(`${ROOT}/`).href;
  const names = urls.map((url) => {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (pkg) return pkg[1]!;
    return url.startsWith(rootUrl) ? url.slice(rootUrl.length) : url;
  });
  return [...new Set(names)];
}

const STORE = /^src\/stores\/json-file\/(?!lazy\.ts$|format-version\.ts$)/;
const SUMMARIZER = /^src\/summarizers\//;
const HEAVY = ['lowdb', 'steno', 'wink-nlp', 'wink-eng-lite-web-model', 'swagger-ui-dist', 'pg'];

describe('what importing the package loads', () => {
  beforeAll(async () => {
    folder = await tempDir('cms-entry-');
    await writeFile(path.join(folder, 'hooks.mjs'), HOOKS);
    await writeFile(path.join(folder, 'register.mjs'), REGISTER);
    await writeFile(path.join(folder, 'child.mjs'), CHILD);
  });

  it('the root loads neither the JSON-file store nor the summarizer', async () => {
    const modules = await loaded('root');
    // The hook saw the package itself: the check below is not vacuous.
    expect(modules).toContain('src/index.ts');
    expect(modules).toContain('src/service.ts');
    expect(modules.filter((m) => STORE.test(m) || SUMMARIZER.test(m) || HEAVY.includes(m))).toEqual([]);
  }, 60_000);

  it('nor does the HTTP adapter', async () => {
    const modules = await loaded('adapter');
    expect(modules).toContain('adapters/hono/docs-page.ts');
    expect(modules.filter((m) => STORE.test(m) || SUMMARIZER.test(m) || HEAVY.includes(m))).toEqual([]);
  }, 60_000);

  it('nor does createService given its own repository and summarizer, even with a dataDir', async () => {
    const modules = await loaded('own');
    expect(modules.filter((m) => STORE.test(m) || SUMMARIZER.test(m) || HEAVY.includes(m))).toEqual([]);
  }, 60_000);

  it('createService() loads the extractive summarizer, and not the store', async () => {
    const modules = await loaded('defaults');
    expect(modules).toContain('src/summarizers/extractive.ts');
    expect(modules.filter((m) => STORE.test(m) || m === 'lowdb')).toEqual([]);
  }, 60_000);

  it('createService({ dataDir }) loads the JSON-file store too', async () => {
    const modules = await loaded('data-dir');
    expect(modules).toEqual(expect.arrayContaining(['src/stores/json-file/index.ts', 'lowdb', 'src/summarizers/extractive.ts']));
  }, 60_000);
});

describe('the docs page without swagger-ui-dist', () => {
  it('answers 501 saying how to install it; openapi.json still works', async () => {
    const service = await createService();
    try {
      const router = createHonoRouter(service);
      const page = await router.request('http://127.0.0.1/docs');
      expect(page.status).toBe(501);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const text = await page.text();
      expect(text).toContain('swagger-ui-dist');
      expect(text).toContain('npm install swagger-ui-dist');

      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
        const answer = await router.request(`http://127.0.0.1/docs/${asset}`);
        expect(answer.status).toBe(501);
        const body = (await answer.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('NOT_IMPLEMENTED');
        expect(body.error.message).toContain('npm install swagger-ui-dist');
      }
      // The page's own script needs nothing from the package; unknown assets stay 404.
      expect((await router.request('http://127.0.0.1/docs/init.js')).status).toBe(200);
      expect((await router.request('http://127.0.0.1/docs/nope.js')).status).toBe(404);
      expect((await router.request('http://127.0.0.1/openapi.json')).status).toBe(200);
    } finally {
      await service.close();
    }
  });
});
