/**
 * The real server process (the CLI's `serve`) given a model file that aborts llama.cpp: renames
 * that name the model are answered by the embedded summarizer, the server stays up and answers
 * everyone, `models list` and the model's answer say why it failed, and the official client's
 * load of the model is refused with the reason. Skipped,
 * saying why, where node-llama-cpp's prebuilt binary cannot run.
 */
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Configuration, ModelApi, ResponseError } from '@pieces.app/pieces-os-client';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheFolderOf } from '../../src/models/cache-folder.js';
import { compiledScript } from '../helpers/compiled-sources.js';
import { llamaCppUnmet, needs } from '../helpers/requirements.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeTinyGguf } from '../helpers/tiny-gguf.js';

/** Why node-llama-cpp cannot run a model here, or undefined when it can. */
const cannotRun = await llamaCppUnmet();

const servers: ServeProcess[] = [];
afterAll(() => {
  for (const server of servers) server.kill();
});

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, any> });

describe('the server process with a model file that aborts llama.cpp', needs(cannotRun), () => {
  it('stays up: renames fall back to the embedded summarizer, the model shows why it failed, the official client is refused with 422', async () => {
    const dataDir = await tempDir('cms-llama-failures-process-');
    const server = await startServeProcess(dataDir);
    servers.push(server);
    const post = (route: string, body?: unknown) =>
      fetch(`${server.url}${route}`, {
        method: 'POST',
        ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
      });

    const model = await json(await post('/models/create', seededModel({ name: 'Crashes llama.cpp', unique: 'crashes-llama-cpp' })));
    expect(model.status).toBe(200);
    const folder = cacheFolderOf(path.join(dataDir, 'models'), model.body.id);
    await mkdir(folder, { recursive: true });
    // Token embeddings of a type no backend computes with: llama.cpp aborts its process on a native assert.
    await writeTinyGguf(path.join(folder, 'model.gguf'), { tensorTypes: { 'token_embd.weight': 26 } });
    const conversation = await json(
      await post('/conversations/create', {
        type: 'COPILOT',
        model: { id: model.body.id },
        messages: [{ role: 'USER', fragment: { string: { raw: 'How do I retry a flaky payment API in TypeScript?' } } }],
      }),
    );

    for (let i = 0; i < 2; i++) {
      const renamed = await json(await post(`/conversation/${conversation.body.id}/rename`));
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toMatch(/retry/i);
    }
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.url}/.well-known/health`)).status).toBe(200);
    const answer = await json(await fetch(`${server.url}/model/${model.body.id}`));
    expect(answer.body.loadFailure.reason).toMatch(/runner process was killed by SIGABRT: .*GGML_ASSERT/);
    expect(server.output()).toMatch(/could not write the title: .*SIGABRT/);

    // The command line's list says so too.
    const list = spawnSync(process.execPath, [compiledScript('adapters/cli/main.ts'), 'models', 'list', '--url', server.url], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(list.stdout).toMatch(new RegExp(`${model.body.id}\\tCrashes llama.cpp\\tyes\\tyes\\tfailed`));
    expect(list.stdout).toMatch(new RegExp(`${model.body.id} failed to load \\(.+\\): .*killed by SIGABRT`));

    const client = new ModelApi(new Configuration({ basePath: server.url }));
    const refused = await client.modelSpecificModelLoad({ model: model.body.id }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ResponseError);
    expect((refused as ResponseError).response.status).toBe(422);
    expect(server.child.exitCode).toBeNull();
  });
});
