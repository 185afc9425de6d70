/**
 * The real server process (the CLI's `serve`) whose default model is on an OpenAI-compatible server
 * that answers a chat with 400 MB: the answer is cut at the runtime's cap, so the server's memory
 * stays put, other requests are answered meanwhile, and the embedded summarizer writes the title.
 * Before the cap, such an answer took the process to 1.7 GB and stalled every request for 2.9 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { rssMiBOf } from '../helpers/processes.js';
import { needs, PROC, unmet } from '../helpers/requirements.js';
import { type ServeProcess, startServeProcess, watchServer } from '../helpers/serve-process.js';
import { said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const MiB = 2 ** 20;
// Made while the file is collected: tempDir() removes it after the file, a hook it cannot add from
// inside a running test.
const dataDir = await tempDir();
const cleanUps: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanUp of cleanUps.splice(0)) await cleanUp();
});

describe('the server process, when a model answers 400 MB', needs(unmet(PROC)), () => {
  it('cuts the answers, keeps its memory within 64 MiB of its level, answers other requests, and writes the titles itself', async () => {
    // The warm-up conversation's answer is an error, at once: the embedded summarizer then writes
    // its title, so its NLP model is loaded before the memory is measured, not counted in the rise.
    const fake = await startOpenAiServer(['huge-answers'], (chat) =>
      chat.messages.some((message) => message.content.includes('Warm up'))
        ? { status: 503, body: 'warming up' }
        : { streamBytes: 400 * MiB },
    );
    cleanUps.push(() => fake.close());
    const server: ServeProcess = await startServeProcess(dataDir, {
      OPENAI_BASE_URL: fake.baseUrl,
      DEFAULT_MODEL: 'openai:huge-answers',
    });
    cleanUps.unshift(() => server.kill());
    const post = async (path: string, body: unknown = {}) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { id: string; name?: string } };
    };
    const conversation = async (text: string) =>
      (await post('/conversations/create', { type: 'COPILOT', messages: [said('USER', text), said('ASSISTANT', text)] })).body.id;
    const warmUp = await conversation('Warm up the embedded summarizer, please.');
    expect((await post(`/conversation/${warmUp}/rename`)).status).toBe(200);
    const ids = [
      await conversation('How do I retry a flaky payment API in TypeScript without hammering it?'),
      await conversation('Why does my Postgres migration lock the whole table?'),
    ];
    const before = rssMiBOf(server.pid)!;

    // Two renames at once, as in the issue (two answers of 1.5 GB took the process to 4.6 GB).
    const watched = await watchServer(server, () => Promise.all(ids.map((id) => post(`/conversation/${id}/rename`))));

    for (const renamed of watched.result) expect(renamed).toMatchObject({ status: 200, body: { name: expect.stringMatching(/\w/) } });
    const fellBack = server
      .output()
      .match(/Model openai:huge-answers could not write the title: .*answered more than 1 MiB.*embedded summarizer wrote it/g);
    expect(fellBack).toHaveLength(2);
    // The fake server wrote a few MiB at most of each answer (the 1 MiB cap, plus what the sockets
    // buffer on loopback) before the service closed the connection: far from the 400 MiB it had.
    await Promise.all(fake.streams.map((stream) => stream.done));
    expect(fake.streams).toHaveLength(2);
    for (const stream of fake.streams) {
      expect(stream.finished).toBe(false);
      expect(stream.sent).toBeLessThan(16 * MiB);
    }
    // Every health request during the renames was answered (how fast is the benchmark's business).
    expect(watched.health.length).toBeGreaterThan(0);
    expect(watched.health.filter((answer) => answer.status !== 200)).toEqual([]);
    // The target, generous: the cap is 1 MiB an answer; the rest is the service's own work
    // and the garbage collector's timing, which vary run to run. Read whole, one such answer
    // raised it by 1.6 GiB.
    expect(watched.peakRssMiB - before).toBeLessThanOrEqual(64);
    // Alive and answering afterwards.
    expect((await fetch(`${server.url}/.well-known/health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
