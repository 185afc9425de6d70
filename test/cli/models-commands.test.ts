/**
 * The model commands against a running server (the command's own `serve`, on a free 127.0.0.1 port,
 * with an API_TOKEN): they find it through PORT and HOST as serve reads them, or through flags;
 * send the token; and list, show, pull, stop and delete models, each failure one line and exit
 * status 1.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { seededModel } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { unusedPort } from '../helpers/unused-port.js';
import { runCli } from './run-cli.js';

const TOKEN = 'cli-test-token';
const BUILT_IN = 'extractive-summarizer';
let server: ServeProcess;
let port: string;
let custom: string;

/** A request to the server, with the token. */
async function call(method: string, route: string, body?: unknown) {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.ok, `${method} ${route}: ${response.status}`).toBe(true);
  return response.status === 204 ? undefined : ((await response.json()) as { id: string });
}

/** Runs a model command against the server: found through PORT and HOST, with the token. */
const models = (...args: string[]) => runCli(['models', ...args], { PORT: port, HOST: '127.0.0.1', API_TOKEN: TOKEN });

beforeAll(async () => {
  server = await startServeProcess(await tempDir(), { API_TOKEN: TOKEN, PORT: '', HOST: '' });
  port = new URL(server.url).port;
  custom = (await call('POST', '/models/create', seededModel()))!.id;
});
afterAll(() => server?.kill());

describe('where the server is', () => {
  it('models list finds it through PORT and HOST, as serve reads them; 0.0.0.0 is reached on loopback', async () => {
    const row = `${custom}\tMy Llama\tyes\tno\tno\t-`;
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const run = await runCli(['models', 'list'], { PORT: port, HOST: host, API_TOKEN: TOKEN });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('ID\tNAME\tCUSTOM\tDOWNLOADED\tLOADED\tSIZE');
      expect(lines).toContain(row);
      expect(lines.some((line) => line.startsWith(`${BUILT_IN}\t`))).toBe(true);
    }
  });

  it('--host and --port win over HOST and PORT; --url too', async () => {
    const env = { PORT: String(await unusedPort()), HOST: 'unreachable.invalid', API_TOKEN: TOKEN };
    expect((await runCli(['models', 'list', '--host', '127.0.0.1', '--port', port], env)).code).toBe(0);
    expect((await runCli(['models', 'list', '--url', server.url], env)).code).toBe(0);
  });

  it('says in one line, exit 1, when nothing listens there', async () => {
    const closed = await unusedPort();
    const run = await runCli(['models', 'list'], { PORT: String(closed) });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^Cannot reach http://127\\.0\\.0\\.1:${closed} \\(connection refused\\)\\. [^\\n]+\\n$`));
  });

  it('sends API_TOKEN; without it the server refuses, in one line', async () => {
    const run = await runCli(['models', 'ps'], { PORT: port });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^[^\n]*Set API_TOKEN to the server's token\.\n$/);
  });
});

describe('the model commands', () => {
  it('ps lists the loaded models only; stop unloads one', async () => {
    const header = 'ID\tNAME\tSIZE\tRAM\tPROCESSOR\n';
    expect(await models('ps')).toEqual({ code: 0, stdout: header, stderr: '' });
    await call('POST', `/model/${BUILT_IN}/load`);
    const loaded = await models('ps');
    expect(loaded).toEqual({ code: 0, stdout: `${header}${BUILT_IN}\tEmbedded extractive summarizer\t-\t-\tCPU\n`, stderr: '' });

    expect(await models('stop', BUILT_IN)).toEqual({
      code: 0,
      stdout: `unloaded Embedded extractive summarizer (${BUILT_IN})\n`,
      stderr: '',
    });
    expect(await models('ps')).toEqual({ code: 0, stdout: header, stderr: '' });
    // Stopping a model that is not loaded changes nothing.
    expect(await models('stop', custom)).toEqual({ code: 0, stdout: `unloaded My Llama (${custom})\n`, stderr: '' });
  });

  it("show prints one model's details, label and value; an unknown model is one line, exit 1", async () => {
    const run = await models('show', custom);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    for (const [label, value] of [
      ['id', custom],
      ['name', 'My Llama'],
      ['usage', 'CODE_CONVERSATION'],
      ['foundation', 'LLAMA_3_8B'],
      ['source', 'llama-3-8b-custom'],
      ['custom', 'yes'],
      ['downloaded', 'no'],
      ['loaded', 'no'],
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^${label} +${value}$`, 'm'));
    }
    expect(await models('show', 'no-such-model')).toEqual({ code: 1, stdout: '', stderr: 'No model has the id "no-such-model".\n' });
  });

  it('takes a model by its name too, as Ollama does (letter case aside); a name two models share is one line, exit 1', async () => {
    const byName = await models('show', 'my llama');
    expect({ code: byName.code, stderr: byName.stderr }).toEqual({ code: 0, stderr: '' });
    expect(byName.stdout).toMatch(new RegExp(`^id +${custom}$`, 'm'));
    const twin = (await call('POST', '/models/create', seededModel({ unique: 'llama-3-8b-twin' })))!.id;
    const run = await models('show', 'My Llama');
    expect(run).toEqual({ code: 1, stdout: '', stderr: `2 models are named "My Llama": give one of their ids, ${custom}, ${twin}.\n` });
    expect(await models('rm', twin)).toEqual({ code: 0, stdout: `deleted ${twin}\n`, stderr: '' });
  });

  it('pull of a model without a download source says why, in one line, exit 1', async () => {
    const run = await models('pull', custom);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^Model "[^"]+" has no download source: [^\n]+\n$/);
  });

  it('pull prints what it pulled with its size, a model pulled before too (its download over before the first look)', async () => {
    const file = randomBytes(256 * 1024);
    const files = createServer((_request, response) => response.writeHead(200, { 'content-length': file.length }).end(file));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => files.close(() => resolve())));
    const base = `http://127.0.0.1:${(files.address() as net.AddressInfo).port}`;
    const model = (await call('POST', '/models/create', seededModel({ name: 'Pulled', unique: `${base}/pulled.gguf` })))!.id;

    const first = await models('pull', model);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe(`pulled ${model} (256 KiB)`);
    // Pulled before: the first answer is COMPLETED, with the finished file's size.
    expect(await models('pull', model)).toEqual({
      code: 0,
      stdout: `COMPLETED 100%  256 KiB / 256 KiB\npulled ${model} (256 KiB)\n`,
      stderr: '',
    });
  });

  it('rm deletes a custom model, refuses the built-in one, and says when there is none', async () => {
    const builtIn = await models('rm', BUILT_IN);
    expect({ code: builtIn.code, stdout: builtIn.stdout }).toEqual({ code: 1, stdout: '' });
    expect(builtIn.stderr).toMatch(/^[^\n]*built in[^\n]*\n$/);

    expect(await models('rm', custom)).toEqual({ code: 0, stdout: `deleted ${custom}\n`, stderr: '' });
    expect((await models('list')).stdout).not.toContain(custom);
    expect(await models('rm', custom)).toEqual({ code: 1, stdout: '', stderr: `No model has the id "${custom}".\n` });
  });
});
