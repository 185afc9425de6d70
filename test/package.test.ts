/**
 * The package as users get it: `npm pack` (which builds it), installed with hono into a fresh
 * project, used from plain ESM JavaScript, from CommonJS `require()`, from TypeScript under
 * `nodenext` and `bundler` resolution, and through its command. Nothing of this repository's
 * sources is reachable from there.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/temp-dir.js';
import { writeTinyGguf } from './helpers/tiny-gguf.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
let project: string;

const sh = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
  });

beforeAll(async () => {
  const packs = await tempDir('cms-pack-');
  sh('npm', ['pack', '--silent', '--pack-destination', packs], ROOT);
  const tarball = path.join(packs, (await readdir(packs)).find((name) => name.endsWith('.tgz'))!);
  project = await tempDir('cms-consumer-');
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  sh('npm', ['install', '--silent', '--prefer-offline', tarball, 'hono@^4.13.0', '@hono/node-server@^1.19.0'], project);
}, 300_000);

const USE = `
const service = await createService();
const created = await service.createConversation({ type: 'COPILOT', name: 'From the package' });
const router = createHonoRouter(service);
const listed = await (await router.request('/conversations')).json();
console.log(created.name, listed.iterable.length);
await service.close();
`;

describe('the packed package in a fresh project', () => {
  it('works from ESM JavaScript: the service in-process and mounted', async () => {
    await writeFile(
      path.join(project, 'esm.mjs'),
      `import { createService } from 'conversation-model-service';\nimport { createHonoRouter } from 'conversation-model-service/adapters/hono';\n${USE}`,
    );
    expect(sh('node', ['esm.mjs'], project).trim()).toBe('From the package 1');
  });

  it('offers the summarizers at their own entry point, not at the root', async () => {
    await writeFile(
      path.join(project, 'summarizer.mjs'),
      "import * as root from 'conversation-model-service';\n" +
        "import { createExtractiveSummarizer } from 'conversation-model-service/summarizer';\n" +
        'const summarizer = createExtractiveSummarizer();\n' +
        "const title = await summarizer.title([{ id: 'm1', role: 'USER', text: 'How do I retry a flaky payment API call in TypeScript?' }]);\n" +
        "console.log('createExtractiveSummarizer' in root, title);\n",
    );
    expect(sh('node', ['summarizer.mjs'], project).trim()).toBe('false Retrying a flaky payment API call in TypeScript');
  });

  it('ships the Repository contract suite at its own entry point, with its types', async () => {
    const installed = path.join(project, 'node_modules', 'conversation-model-service');
    await writeFile(path.join(project, 'testing.mjs'), "console.log(import.meta.resolve('conversation-model-service/testing'));\n");
    const resolved = new URL(sh('node', ['testing.mjs'], project).trim());
    expect(resolved.pathname).toBe(path.join(installed, 'dist', 'testing.js'));
    expect(await readFile(path.join(installed, 'dist', 'testing.d.ts'), 'utf8')).toMatch(/describeRepositoryContract/);
  });

  it('ships its licence, README and changelog beside the built entry points', async () => {
    const installed = path.join(project, 'node_modules', 'conversation-model-service');
    const files = await readdir(installed);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'dist', 'package.json']));
  });

  it('loads with require() (Node 20.19 and later)', () => {
    const out = sh(
      'node',
      [
        '-e',
        "const m = require('conversation-model-service'); console.log(typeof m.createService, typeof require('conversation-model-service/adapters/hono').createHonoRouter)",
      ],
      project,
    );
    expect(out.trim()).toBe('function function');
  });

  for (const resolution of ['nodenext', 'bundler'] as const) {
    it(`type-checks from TypeScript with ${resolution} resolution, and catches a misspelled input`, async () => {
      const folder = path.join(project, `ts-${resolution}`);
      await mkdir(folder, { recursive: true });
      await writeFile(
        path.join(folder, 'use.ts'),
        `import { createService } from 'conversation-model-service';\nimport { createHonoRouter } from 'conversation-model-service/adapters/hono';\n${USE}\n// @ts-expect-error: \`typ\` is not a field.\nvoid service.createConversation({ typ: 'COPILOT' });\nexport {};\n`,
      );
      const compilerOptions =
        resolution === 'nodenext'
          ? { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] }
          : { module: 'esnext', moduleResolution: 'bundler', target: 'es2022', strict: true, noEmit: true, types: [] };
      await writeFile(path.join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['use.ts'] }));
      // Type errors make tsc exit non-zero, which throws here with its output.
      sh('node', [TSC, '-p', 'tsconfig.json'], folder);
    });
  }

  it('starts its GGUF runner process from the package (which, without node-llama-cpp there, says how to install it)', async () => {
    const folder = path.join(project, 'models', 'tiny');
    await mkdir(folder, { recursive: true });
    await writeTinyGguf(path.join(folder, 'model.gguf'));
    await writeFile(
      path.join(project, 'runner.mjs'),
      "import { createLlamaCppRuntime } from 'conversation-model-service/runtimes/llama-cpp';\n" +
        "const llama = createLlamaCppRuntime({ cacheRoot: 'models' });\n" +
        "const model = { id: 'tiny', version: '1', created: { value: '2026-01-01T00:00:00.000Z' }, name: 'tiny', cloud: false, type: 'SPEED', usage: 'CODE_CONVERSATION' };\n" +
        'await llama.load(model).then(() => console.log("loaded"), (error) => console.log(error.message));\n',
    );
    // The runner script was found and ran: the message is the runner's own, from its import of node-llama-cpp.
    expect(sh('node', ['runner.mjs'], project)).toMatch(
      /tiny could not be loaded: GGUF models run on node-llama-cpp.*npm install node-llama-cpp/,
    );
  });

  it('runs its command', () => {
    expect(sh('npx', ['--no-install', 'conversation-model-service', '--version'], project).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
